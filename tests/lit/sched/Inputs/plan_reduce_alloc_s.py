i, j, k = sch.get_loops(sch.get_block("multiply"))
sch.reverse_compute_at(sch.get_block("add"), k)
