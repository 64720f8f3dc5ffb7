"""Error messages in German from Python: LANGUAGE=de with a German locale
(po/meson.build compiles one into the build, LOCPATH) and the build's
catalogs (EP_TEST_LOCALEDIR). Runs in a child interpreter so that the
locale of the other tests stays as it is."""

import os
import subprocess
import sys

import pytest

LOCALEDIR = os.environ.get("EP_TEST_LOCALEDIR")
LOCPATH = os.environ.get("EP_TEST_LOCPATH")

pytestmark = pytest.mark.skipif(not (LOCALEDIR and LOCPATH and os.path.isdir(LOCPATH)),
                                reason="no test locale in this build")

SCRIPT = r"""
import locale, sys
import gi
gi.require_version("Ep", "1.0")
from gi.repository import Ep, GLib

locale.setlocale(locale.LC_ALL, "")
locale.bindtextdomain("eager-glib", sys.argv[1])
try:
    Ep.astensor([1.0, 2.0, 3.0]) + Ep.zeros(4)
except GLib.Error as e:
    assert e.matches(Ep.error_quark(), Ep.Error.SHAPE)
    print(e.message)
print(Ep.astensor([1.5, 2.0]))
"""


def run_german(language):
    env = dict(os.environ, LANGUAGE=language, LC_ALL="de_DE.UTF-8", LOCPATH=LOCPATH)
    result = subprocess.run([sys.executable, "-c", SCRIPT, LOCALEDIR], env=env,
                            capture_output=True, text=True, check=True)
    return result.stdout.splitlines()


def test_error_message_in_german():
    message, printed = run_german("de")
    assert message == "add: Die Formen (3,) und (4,) lassen sich nicht gegeneinander aufweiten (Broadcasting)"
    assert printed == "[1.5 2. ]"


MESSAGES = r"""
import locale, sys
import gi
gi.require_version("Ep", "1.0")
from gi.repository import Ep, GLib

locale.setlocale(locale.LC_ALL, "")
locale.bindtextdomain("eager-glib", sys.argv[1])


def message(call):
    try:
        call()
    except (GLib.Error, IndexError) as e:
        print(getattr(e, "message", None) or str(e))


released = Ep.astensor([1.0, 2.0])
released.release()
message(lambda: str(released))
message(lambda: Ep.value_and_grad(lambda x: 1.0, Ep.astensor(1.0)))
message(lambda: Ep.astensor([1.0])[0, 0])
message(lambda: Ep.astensor([1.0]).sum(axis=1))
"""


def test_python_layer_messages_in_german():
    env = dict(os.environ, LANGUAGE="de", LC_ALL="de_DE.UTF-8", LOCPATH=LOCPATH)
    result = subprocess.run([sys.executable, "-c", MESSAGES, LOCALEDIR], env=env,
                            capture_output=True, text=True, check=True)
    assert result.stdout.splitlines() == [
        # raised while printing, whose numbers are read in the C locale
        "to_string: Der Tensor wurde freigegeben und hat keine Daten mehr",
        # raised by the Python layer itself
        "value_and_grad: Die Funktion hat float zurückgegeben, keinen Tensor",
        "zu viele Indizes für einen Tensor mit 1 Dimension (2 wurden indiziert)",
        # German's singular
        "sum: Achse 1 liegt außerhalb des Bereichs eines Tensors mit 1 Dimension",
    ]


def test_english_without_a_translation():
    message, _ = run_german("en")
    assert message == "add: shapes (3,) and (4,) cannot be broadcast together"
