b = sch.get_block("C")
i, j, k = sch.get_loops(b)
sch.decompose_reduction(b, i)
sch.cache_write("C_update", 0, "local")
