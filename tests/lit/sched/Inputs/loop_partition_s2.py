i, j = sch.get_loops(sch.get_block("opaque"))
sch.loop_partition(i, factors=[None, 2])
