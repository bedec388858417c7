i, j, k = sch.get_loops(sch.get_block("B"))
sch.loop_partition(i, factors=[10, 2, 4])
