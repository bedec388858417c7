/* verify.h - well-formedness of a prim_func, valid at every lowering stage.
 *
 * tir_verify_func checks what holds from elaboration to make-packed-api:
 *  - every variable is used inside the statement that defines it: params and
 *    the vars of buffer_map buffers (shape, strides, elem_offset) are defined
 *    throughout; loop vars, LetStmt/Let vars, block iter vars, Allocate vars,
 *    AttrStmt nodes and the data vars of defined buffers (alloc_buffer,
 *    match_buffer, DeclBuffer) in their bodies;
 *  - a buffer load or store has as many indices as its buffer has dimensions
 *    (one after flatten-buffer) and a block region as many ranges;
 *  - the operands of a binary operator have the same dtype, lanes included
 *    (vectorize makes both sides vectors or broadcasts the scalar one);
 *  - where blocks exist, a realize binds one value per block iter, and a
 *    block-allocated buffer is not accessed outside its block.
 * TIR_VERIFY_SCHEDULE adds the rules of scheduled (block-level) IR that
 * sched/verify.c enforces after every primitive under debug_mask: a block body
 * sees its own and enclosing blocks' iters but not the loops around it,
 * bindings stay in their iters' domains, and a leaf block lists every buffer
 * it touches in its reads/writes. */
#ifndef TVS_IR_VERIFY_H
#define TVS_IR_VERIFY_H

#include <stdbool.h>

#include "base/util.h"
#include "ir/tir.h"

#define TIR_VERIFY_SCHEDULE 1u /* add the block-level rules of scheduled IR */

/* True when f is well formed; otherwise appends the first violation to why
 * (one line, no trailing newline) and returns false. */
bool tir_verify_func(const TirFunc *f, StrBuf *why);
bool tir_verify_func_flags(const TirFunc *f, unsigned flags, StrBuf *why);

#endif
