r, t, k = sch.get_loops("R_rf")
sch.reverse_compute_at("S", t)
