i, j, k = sch.get_loops("C")
sch.parallel(k)
