c = sch.get_block("C")
i, j, k0, k1 = sch.get_loops(c)
sch.write_at(j, c, 0, "local")
print(sch.trace)
