i, j = sch.get_loops("B")
sch.rfactor(j, 0)
