i, j = sch.get_loops("C")
sch.compute_at("B", j, preserve_unit_loops=True, index=0)
print(sch.trace)
