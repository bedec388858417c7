b = sch.get_block("CC")
