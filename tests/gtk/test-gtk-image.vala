/* test-gtk-image.vala: eager-glib-gtk from Vala, through its vapi
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

void test_round_trip () {
  try {
    var t = new Ep.Tensor.from_doubles ({ 0.0, 0.5, 1.0, 2.0 }, { 2, 2 }, Ep.DType.FLOAT32);
    Gdk.Texture texture = EpGtk.tensor_to_texture (t);
    assert (texture.get_width () == 2 && texture.get_height () == 2);
    var back = EpGtk.tensor_new_from_texture (texture, Ep.DType.UINT8);
    unowned uint8[] px = back.to_bytes ().get_data ();
    assert (px.length == 16);
    uint8[] gray = { 0, 128, 255, 255 };
    for (int p = 0; p < 4; p++) {
      assert (px[p * 4] == gray[p] && px[p * 4 + 1] == gray[p] && px[p * 4 + 2] == gray[p]);
      assert (px[p * 4 + 3] == 255);
    }
  } catch (Error e) {
    error ("%s", e.message);
  }
}

void test_errors () {
  try {
    EpGtk.tensor_to_texture (Ep.zeros ({ 2, 2, 2 }, Ep.DType.FLOAT32));
    assert_not_reached ();
  } catch (Ep.Error.SHAPE e) {
    assert (e.message.has_prefix ("to_texture: "));
  } catch (Error e) {
    error ("wrong error: %s", e.message);
  }
  try {
    var pixbuf = new Gdk.Pixbuf (Gdk.Colorspace.RGB, false, 8, 2, 2);
    EpGtk.tensor_new_from_pixbuf (pixbuf, Ep.DType.INT32);
    assert_not_reached ();
  } catch (Ep.Error.DTYPE e) {
    assert (e.message.has_prefix ("new_from_pixbuf: "));
  } catch (Error e) {
    error ("wrong error: %s", e.message);
  }
}

int main (string[] args) {
  Test.init (ref args);
  Test.add_func ("/gtk/vala/round-trip", test_round_trip);
  Test.add_func ("/gtk/vala/errors", test_errors);
  return Test.run ();
}
