i, j = sch.get_loops("C")
sch.splt(i, factors=[4, 4])
