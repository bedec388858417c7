i, j = sch.get_loops("B")
i2, j2 = sch.get_loops("C")
sch.reorder(j, i2)
