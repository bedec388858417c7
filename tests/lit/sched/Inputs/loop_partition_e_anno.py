i, j, k = sch.get_loops(sch.get_block("B"))
sch.annotate(k, "pragma_unroll", 1)
sch.loop_partition(k, factors=[None, 2])
