b = sch.get_block("B", func_name="main")
i, k, u = sch.get_loops(b)
sch.rfactor(u, 0)
