/* ep-op-list-private.h: the op table
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every op once, by family. Included with two macros defined:
 *
 *   EP_OP (family, ID, name)   a primitive op: an EpOpDef ep_op_<name> in
 *                              ops/<family>.c, with kernels in
 *                              cpu/<family>.c and opencl/<family>.c
 *   EP_FUNC (family, name)     a composite function: built from other ops
 *                              in ops/<family>.c (EpOpDef ep_func_<name>,
 *                              a schema and no rule)
 *
 * The id enum, the op table, the kernel tables and the catalogue
 * (ep_list_ops()) all come from this list, in this order.
 */

EP_OP (creation, FULL, full)
EP_OP (creation, ARANGE, arange)
EP_OP (creation, LINSPACE, linspace)
EP_OP (creation, EYE, eye)
EP_OP (creation, ONEHOT_LIKE, onehot_like)
EP_FUNC (creation, full_int)
EP_FUNC (creation, arange_int)
EP_FUNC (creation, zeros)
EP_FUNC (creation, ones)
EP_FUNC (creation, zeros_like)
EP_FUNC (creation, ones_like)
EP_FUNC (creation, full_like)
EP_FUNC (creation, full_like_int)

EP_OP (random, UNIFORM, uniform)
EP_OP (random, NORMAL, normal)

EP_OP (cast, ASTYPE, astype)
EP_OP (cast, CONTIGUOUS, contiguous)
EP_OP (cast, TO_DEVICE, to_device)
EP_FUNC (cast, float32)
EP_FUNC (cast, float64)
EP_FUNC (cast, bool)

EP_OP (elementwise, ADD, add)
EP_OP (elementwise, SUB, sub)
EP_OP (elementwise, MUL, mul)
EP_OP (elementwise, DIV, div)
EP_OP (elementwise, POW, pow)
EP_OP (elementwise, FLOORDIV, floordiv)
EP_OP (elementwise, MOD, mod)
EP_OP (elementwise, MINIMUM, minimum)
EP_OP (elementwise, MAXIMUM, maximum)
EP_OP (elementwise, WHERE, where)
EP_OP (elementwise, CLIP, clip)

EP_OP (math, NEG, neg)
EP_OP (math, ABS, abs)
EP_OP (math, SIGN, sign)
EP_OP (math, SQUARE, square)
EP_OP (math, SQRT, sqrt)
EP_OP (math, EXP, exp)
EP_OP (math, EXPM1, expm1)
EP_OP (math, LOG, log)
EP_OP (math, LOG1P, log1p)
EP_OP (math, LOG2, log2)
EP_OP (math, LOG10, log10)
EP_OP (math, SIN, sin)
EP_OP (math, COS, cos)
EP_OP (math, TAN, tan)
EP_OP (math, SINH, sinh)
EP_OP (math, COSH, cosh)
EP_OP (math, TANH, tanh)
EP_OP (math, ARCSIN, arcsin)
EP_OP (math, ARCCOS, arccos)
EP_OP (math, ARCTAN, arctan)
EP_OP (math, ARCSINH, arcsinh)
EP_OP (math, ARCCOSH, arccosh)
EP_OP (math, ARCTANH, arctanh)
EP_OP (math, SIGMOID, sigmoid)
EP_OP (math, RELU, relu)
EP_OP (math, SOFTPLUS, softplus)
EP_OP (math, ROUND, round)
EP_OP (math, CEIL, ceil)
EP_OP (math, FLOOR, floor)

EP_OP (logical, LESS, less)
EP_OP (logical, LESS_EQUAL, less_equal)
EP_OP (logical, EQUAL, equal)
EP_OP (logical, NOT_EQUAL, not_equal)
EP_OP (logical, GREATER, greater)
EP_OP (logical, GREATER_EQUAL, greater_equal)
EP_OP (logical, LOGICAL_AND, logical_and)
EP_OP (logical, LOGICAL_OR, logical_or)
EP_OP (logical, LOGICAL_NOT, logical_not)
EP_OP (logical, ISNAN, isnan)
EP_OP (logical, ISINF, isinf)
EP_OP (logical, ISFINITE, isfinite)

EP_OP (reduce, SUM, sum)
EP_OP (reduce, MEAN, mean)
EP_OP (reduce, MAX, max)
EP_OP (reduce, MIN, min)
EP_OP (reduce, PROD, prod)
EP_OP (reduce, ALL, all)
EP_OP (reduce, ANY, any)
EP_OP (reduce, ARGMIN, argmin)
EP_OP (reduce, ARGMAX, argmax)
EP_FUNC (reduce, l0)
EP_FUNC (reduce, l1)
EP_FUNC (reduce, l2)
EP_FUNC (reduce, linf)
EP_FUNC (reduce, lp)

EP_OP (scan, CUMSUM, cumsum)

EP_OP (sort, SORT, sort)
EP_OP (sort, ARGSORT, argsort)
EP_OP (sort, TOPK, topk)

EP_OP (softmax, SOFTMAX, softmax)
EP_OP (softmax, LOG_SOFTMAX, log_softmax)
EP_OP (softmax, LOGSUMEXP, logsumexp)
EP_OP (softmax, CROSSENTROPY, crossentropy)

EP_OP (views, RESHAPE, reshape)
EP_OP (views, TRANSPOSE, transpose)
EP_OP (views, EXPAND_DIMS, expand_dims)
EP_OP (views, SQUEEZE, squeeze)
EP_OP (views, BROADCAST_TO, broadcast_to)
EP_OP (views, FLIP, flip)
EP_OP (views, SLICE, slice)
EP_FUNC (views, flatten)

EP_OP (join, CONCATENATE, concatenate)
EP_OP (join, TILE, tile)
EP_OP (join, PAD, pad)
EP_FUNC (join, stack)
EP_FUNC (join, split)
EP_FUNC (join, split_at)
EP_FUNC (join, meshgrid)

EP_OP (index, TAKE, take)
EP_OP (index, TAKE_ALONG_AXIS, take_along_axis)
EP_OP (index, MASK, mask)
EP_OP (index, INDEX_UPDATE, index_update)
EP_OP (index, SCATTER_ADD, scatter_add)

EP_OP (linalg, MATMUL, matmul)
EP_FUNC (linalg, dot)
EP_FUNC (linalg, outer)

EP_OP (lapack, INV, inv)
EP_OP (lapack, SLOGDET, slogdet)
EP_OP (lapack, SOLVE, solve)

EP_OP (autodiff, STOP_GRADIENT, stop_gradient)
EP_OP (autodiff, IDENTITY, identity)
EP_OP (autodiff, CUSTOM_GRADIENT, custom_gradient)
