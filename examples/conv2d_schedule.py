# A CPU schedule for conv2d.tvs: the padded copy of the input is computed per
# output row (compute_at), the window loops move outside the output row so
# that the row is the innermost, vectorized loop, the initialisation becomes
# its own block, and output channels run in parallel.
b = sch.get_block("conv")
n, f, h, w, c, kh, kw = sch.get_loops(b)
sch.reorder(n, f, h, c, kh, kw, w)
sch.compute_at(sch.get_block("pad"), h)
sch.decompose_reduction(b, c)
sch.vectorize(w)
sch.parallel(f)
