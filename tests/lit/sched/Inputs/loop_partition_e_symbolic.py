i, j = sch.get_loops(sch.get_block("B"))
sch.loop_partition(j, factors=[4, None])
