/* ep-dlpack-private.h: the DLPack ABI
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The structures of DLPack (https://github.com/dmlc/dlpack, dlpack.h,
 * version 0.8, the one PyTorch 1.13 and NumPy 1.24 speak), written out
 * here: they are an ABI, fixed by the field layout below, and Debian's
 * libdlpack-dev is older (0.6, without kDLBool).
 */

#pragma once

#include <stdint.h>

G_BEGIN_DECLS

typedef enum
{
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
} DLDeviceType;

typedef struct
{
  int32_t device_type;   /* DLDeviceType */
  int32_t device_id;
} DLDevice;

typedef enum
{
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
} DLDataTypeCode;

typedef struct
{
  uint8_t  code;    /* DLDataTypeCode */
  uint8_t  bits;
  uint16_t lanes;
} DLDataType;

typedef struct
{
  void       *data;
  DLDevice    device;
  int32_t     ndim;
  DLDataType  dtype;
  int64_t    *shape;
  int64_t    *strides;      /* in elements; NULL: C order */
  uint64_t    byte_offset;
} DLTensor;

typedef struct DLManagedTensor DLManagedTensor;

struct DLManagedTensor
{
  DLTensor   dl_tensor;
  void      *manager_ctx;
  void     (*deleter) (DLManagedTensor *self);
};

G_END_DECLS
