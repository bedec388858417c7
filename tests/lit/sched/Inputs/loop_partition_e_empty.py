i, j, k = sch.get_loops("B")
sch.loop_partition(i, factors=[])
