b = sch.get_block("B")
