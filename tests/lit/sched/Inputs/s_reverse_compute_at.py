i, j = sch.get_loops("B")
sch.reverse_compute_at("C", i, preserve_unit_loops=True)
