i, j = sch.get_loops("C")
sch.reorder(j, i)
