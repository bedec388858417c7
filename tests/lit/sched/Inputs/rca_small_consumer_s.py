io, jo, ii, ji = sch.get_loops("B")
sch.reverse_compute_at("E", ii)
