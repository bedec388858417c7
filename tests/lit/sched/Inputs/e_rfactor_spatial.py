i, k = sch.get_loops("B")
sch.rfactor(i, 0)
