(i,) = sch.get_loops("offset")
sch.split(i, factors=[None, 2])
