i, k = sch.get_loops("S")
ko, ki = sch.split(k, [None, 4])
sch.rfactor(ki, 0)
