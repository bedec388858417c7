b = sch.get_block("Y", "mm_relu")
i, j, k = sch.get_loops(b)
sch.decompose_reduction(b, i)
sch.reindex(sch.get_block("C", "mm_relu"), ("write", 0))
