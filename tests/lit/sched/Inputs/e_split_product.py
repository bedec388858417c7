i, j = sch.get_loops("C")
sch.split(i, factors=[3, 5])
