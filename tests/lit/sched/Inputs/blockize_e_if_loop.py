(i,) = sch.get_loops("D")
sch.blockize(i)
