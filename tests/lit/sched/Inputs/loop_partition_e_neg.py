i, j, k = sch.get_loops(sch.get_block("B"))
sch.loop_partition(j, factors=[0, None])
