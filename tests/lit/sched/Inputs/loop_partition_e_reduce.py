i, j, k = sch.get_loops("C")
sch.loop_partition(k, [None, 4, 3])
