/* core/types.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-tensor-private.h"
#include "ep-types.h"

typedef struct
{
  const char *name;
  gsize       itemsize;
  guint       kind;   /* 0 bool, 1 integer, 2 floating */
} DTypeInfo;

static const DTypeInfo dtype_info[] = {
  [EP_DTYPE_FLOAT32] = { "float32", 4, 2 },
  [EP_DTYPE_FLOAT64] = { "float64", 8, 2 },
  [EP_DTYPE_INT32]   = { "int32",   4, 1 },
  [EP_DTYPE_INT64]   = { "int64",   8, 1 },
  [EP_DTYPE_BOOL]    = { "bool",    1, 0 },
  [EP_DTYPE_UINT8]   = { "uint8",   1, 1 },
  [EP_DTYPE_INT8]    = { "int8",    1, 1 },
  [EP_DTYPE_INT16]   = { "int16",   2, 1 },
  [EP_DTYPE_FLOAT16] = { "float16", 2, 2 },
  [EP_DTYPE_BFLOAT16] = { "bfloat16", 2, 2 },
};

/* (the table has holes: 6 and 7 are not float16 or bfloat16) */
static gboolean
dtype_is_valid (EpDType dtype)
{
  return (guint) dtype < G_N_ELEMENTS (dtype_info) && dtype_info[dtype].name != NULL;
}

/**
 * ep_dtype_get_name:
 * @dtype: an element type
 *
 * Returns the NumPy name of @dtype, such as `"float32"`.
 *
 * Returns: (transfer none): the name
 */
const char *
ep_dtype_get_name (EpDType dtype)
{
  g_return_val_if_fail (dtype_is_valid (dtype), NULL);

  return dtype_info[dtype].name;
}

/* The dtype of NumPy name @name, as ep_dtype_get_name() gives it: for
 * attributes by name and graph files. */
gboolean
ep_dtype_from_name (const char *name,
                    EpDType    *dtype)
{
  for (guint i = 0; i < G_N_ELEMENTS (dtype_info); i++)
    if (g_strcmp0 (dtype_info[i].name, name) == 0)
      {
        *dtype = (EpDType) i;
        return TRUE;
      }

  return FALSE;
}

/**
 * ep_dtype_get_itemsize:
 * @dtype: an element type
 *
 * Returns the size of one element of @dtype, in bytes.
 *
 * Returns: the size in bytes
 */
gsize
ep_dtype_get_itemsize (EpDType dtype)
{
  g_return_val_if_fail (dtype_is_valid (dtype), 0);

  return dtype_info[dtype].itemsize;
}

/**
 * ep_dtype_is_floating:
 * @dtype: an element type
 *
 * Tells whether @dtype holds floating-point numbers.
 *
 * Returns: whether @dtype is a floating-point type
 */
gboolean
ep_dtype_is_floating (EpDType dtype)
{
  g_return_val_if_fail (dtype_is_valid (dtype), FALSE);

  return dtype_info[dtype].kind == 2;
}

/**
 * ep_dtype_is_integer:
 * @dtype: an element type
 *
 * Tells whether @dtype holds integers.
 *
 * Returns: whether @dtype is an integer type (int32, int64, uint8, int8
 *   or int16; bool is not)
 */
gboolean
ep_dtype_is_integer (EpDType dtype)
{
  g_return_val_if_fail (dtype_is_valid (dtype), FALSE);

  return dtype_info[dtype].kind == 1;
}

/* ep_dtype_promote() of half type @half with another type @other */
static EpDType
promote_half (EpDType half,
              EpDType other)
{
  if (other == EP_DTYPE_BOOL)
    return half;
  if (ep_dtype_is_half (other))
    return EP_DTYPE_FLOAT32;
  if (ep_dtype_is_floating (other))
    return other;
  /* an integer */
  if (half == EP_DTYPE_BFLOAT16)
    return half;
  switch (dtype_info[other].itemsize)
    {
    case 1:  return half;
    case 2:  return EP_DTYPE_FLOAT32;
    default: return EP_DTYPE_FLOAT64;
    }
}

/**
 * ep_dtype_promote:
 * @a: an element type
 * @b: another element type
 *
 * Returns the type both promote to, by NumPy's table: bool is below
 * every other type, a wider type of the same kind wins, and mixing
 * integers with float32 gives float64 unless the integer is bool or
 * one of 8 or 16 bits (whose values float32 holds exactly); uint8 with
 * a signed integer gives the narrowest signed type that holds both
 * (int16 with int8 or int16, else the other type).
 *
 * float16 follows NumPy: with bool and 8-bit integers it stays float16,
 * with 16-bit integers it gives float32, with wider integers float64,
 * and the wider float wins. bfloat16, which NumPy lacks, follows
 * PyTorch: with bool and every integer it stays bfloat16, with float16
 * it gives float32, and the wider float wins.
 *
 * Returns: the promoted type
 */
EpDType
ep_dtype_promote (EpDType a,
                  EpDType b)
{
#define F32 EP_DTYPE_FLOAT32
#define F64 EP_DTYPE_FLOAT64
#define I32 EP_DTYPE_INT32
#define I64 EP_DTYPE_INT64
#define B EP_DTYPE_BOOL
#define U8 EP_DTYPE_UINT8
#define I8 EP_DTYPE_INT8
#define I16 EP_DTYPE_INT16
  static const EpDType table[8][8] = {
    /*          F32  F64  I32  I64  BOOL U8   I8   I16 */
    /* F32  */ { F32, F64, F64, F64, F32, F32, F32, F32 },
    /* F64  */ { F64, F64, F64, F64, F64, F64, F64, F64 },
    /* I32  */ { F64, F64, I32, I64, I32, I32, I32, I32 },
    /* I64  */ { F64, F64, I64, I64, I64, I64, I64, I64 },
    /* BOOL */ { F32, F64, I32, I64, B,   U8,  I8,  I16 },
    /* U8   */ { F32, F64, I32, I64, U8,  U8,  I16, I16 },
    /* I8   */ { F32, F64, I32, I64, I8,  I16, I8,  I16 },
    /* I16  */ { F32, F64, I32, I64, I16, I16, I16, I16 },
  };
#undef F32
#undef F64
#undef I32
#undef I64
#undef B
#undef U8
#undef I8
#undef I16

  g_return_val_if_fail (dtype_is_valid (a), EP_DTYPE_FLOAT32);
  g_return_val_if_fail (dtype_is_valid (b), EP_DTYPE_FLOAT32);

  if (a == b)
    return a;
  if (ep_dtype_is_half (b))
    {
      EpDType t = a;

      a = b;
      b = t;
    }
  if (ep_dtype_is_half (a))
    return promote_half (a, b);

  return table[a][b];
}
