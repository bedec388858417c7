i, j = sch.get_loops("C")
j0, j1 = sch.split(j, factors=[None, 4])
sch.parallel(j)
