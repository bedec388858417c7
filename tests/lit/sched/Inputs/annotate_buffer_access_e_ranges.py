sch.annotate_buffer_access("B", 0, "read", lambda vi, vj: ((vj, vj + 1),))
