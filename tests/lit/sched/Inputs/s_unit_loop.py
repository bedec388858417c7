sch.add_unit_loop("B")
i, j = sch.get_loops("C")
sch.add_unit_loop(j)
