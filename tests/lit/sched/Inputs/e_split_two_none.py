i, j = sch.get_loops("C")
sch.split(i, factors=[None, None])
