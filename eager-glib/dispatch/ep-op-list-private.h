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

/* --- math branch (issue 3) --- */

/* elementwise math: ep-ops-math.c */
EP_OP (FLOORDIV, floordiv)
EP_OP (MOD, mod)
EP_OP (MINIMUM, minimum)
EP_OP (MAXIMUM, maximum)
EP_OP (CLIP, clip)
EP_OP (EXPM1, expm1)
EP_OP (LOG1P, log1p)
EP_OP (LOG2, log2)
EP_OP (LOG10, log10)
EP_OP (SIN, sin)
EP_OP (COS, cos)
EP_OP (TAN, tan)
EP_OP (SINH, sinh)
EP_OP (COSH, cosh)
EP_OP (ARCSIN, arcsin)
EP_OP (ARCCOS, arccos)
EP_OP (ARCTAN, arctan)
EP_OP (ARCSINH, arcsinh)
EP_OP (ARCCOSH, arccosh)
EP_OP (ARCTANH, arctanh)
EP_OP (SOFTPLUS, softplus)
EP_OP (SIGN, sign)
EP_OP (ROUND, round)
EP_OP (CEIL, ceil)
EP_OP (FLOOR, floor)

/* logic and classification: ep-ops-logical.c */
EP_OP (LOGICAL_AND, logical_and)
EP_OP (LOGICAL_OR, logical_or)
EP_OP (LOGICAL_NOT, logical_not)
EP_OP (ISNAN, isnan)
EP_OP (ISINF, isinf)
EP_OP (ISFINITE, isfinite)
EP_OP (ALL, all)
EP_OP (ANY, any)

/* products, scans, index reductions: ep-ops-accumulate.c */
EP_OP (PROD, prod)
EP_OP (CUMSUM, cumsum)
EP_OP (ARGMIN, argmin)
EP_OP (ARGMAX, argmax)

/* sorting: ep-ops-sort.c */
EP_OP (SORT, sort)
EP_OP (ARGSORT, argsort)
EP_OP (TOPK, topk)

/* softmax family: ep-ops-softmax.c */
EP_OP (SOFTMAX, softmax)
EP_OP (LOG_SOFTMAX, log_softmax)
EP_OP (LOGSUMEXP, logsumexp)
EP_OP (CROSSENTROPY, crossentropy)

/* generated tensors: ep-ops-generate.c, ep-random.c */
EP_OP (LINSPACE, linspace)
EP_OP (EYE, eye)
EP_OP (ONEHOT_LIKE, onehot_like)
EP_OP (UNIFORM, uniform)
EP_OP (NORMAL, normal)
/* views: ep-ops-views.c */
EP_OP (BROADCAST_TO, broadcast_to)
EP_OP (FLIP, flip)
EP_OP (SLICE, slice)

/* joining and repeating: ep-ops-join.c */
EP_OP (CONCATENATE, concatenate)
EP_OP (TILE, tile)
EP_OP (PAD, pad)

/* gathering and scattering: ep-ops-index.c */
EP_OP (TAKE, take)
EP_OP (TAKE_ALONG_AXIS, take_along_axis)
EP_OP (MASK, mask)
EP_OP (INDEX_UPDATE, index_update)
EP_OP (SCATTER_ADD, scatter_add)

/* LAPACK: ep-ops-lapack.c */
EP_OP (INV, inv)
EP_OP (SLOGDET, slogdet)
EP_OP (SOLVE, solve)

/* automatic differentiation: ep-ops-autodiff.c */
EP_OP (STOP_GRADIENT, stop_gradient)
EP_OP (IDENTITY, identity)
EP_OP (CUSTOM_GRADIENT, custom_gradient)
