b = sch.get_block("C")
r, i, j, k = sch.get_loops(b)
sch.decompose_reduction(b, r)
