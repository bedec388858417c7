io, jo = sch.get_loops("P_o")
sch.reverse_compute_at("Q", jo)
