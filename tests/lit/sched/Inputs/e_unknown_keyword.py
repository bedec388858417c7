i, j = sch.get_loops("C")
sch.split(i, factor=[4, 4])
