/* ep-op-list-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every primitive op, once. Included with EP_OP defined to expand each
 * entry: the id enum, the table of definitions and the kernel tables
 * all come from this list. Each op's definition lives in its family's
 * ep-ops-<family>.c; its kernels in cpu/ and opencl/.
 */

/* creation: ep-creation.c */
EP_OP (FULL, full)
EP_OP (ARANGE, arange)

/* device copies and layout: ep-ops-cast.c */
EP_OP (ASTYPE, astype)
EP_OP (CONTIGUOUS, contiguous)
EP_OP (TO_DEVICE, to_device)

/* elementwise binary: ep-ops-binary.c */
EP_OP (ADD, add)
EP_OP (SUB, sub)
EP_OP (MUL, mul)
EP_OP (DIV, div)
EP_OP (POW, pow)
EP_OP (LESS, less)
EP_OP (LESS_EQUAL, less_equal)
EP_OP (EQUAL, equal)
EP_OP (NOT_EQUAL, not_equal)
EP_OP (GREATER, greater)
EP_OP (GREATER_EQUAL, greater_equal)

/* selection: ep-ops-where.c */
EP_OP (WHERE, where)

/* elementwise unary: ep-ops-unary.c */
EP_OP (NEG, neg)
EP_OP (ABS, abs)
EP_OP (SQUARE, square)
EP_OP (SQRT, sqrt)
EP_OP (EXP, exp)
EP_OP (LOG, log)
EP_OP (TANH, tanh)
EP_OP (SIGMOID, sigmoid)
EP_OP (RELU, relu)

/* reductions: ep-ops-reduce.c */
EP_OP (SUM, sum)
EP_OP (MEAN, mean)
EP_OP (MAX, max)
EP_OP (MIN, min)

/* views: ep-ops-shape.c */
EP_OP (RESHAPE, reshape)
EP_OP (TRANSPOSE, transpose)
EP_OP (EXPAND_DIMS, expand_dims)
EP_OP (SQUEEZE, squeeze)

/* linear algebra: ep-ops-linalg.c */
EP_OP (MATMUL, matmul)

/* automatic differentiation: ep-ops-autodiff.c */
EP_OP (STOP_GRADIENT, stop_gradient)
EP_OP (IDENTITY, identity)
EP_OP (CUSTOM_GRADIENT, custom_gradient)
