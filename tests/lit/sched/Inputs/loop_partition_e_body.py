i, j = sch.get_loops("D")
sch.loop_partition(i, factors=[4, 4])
