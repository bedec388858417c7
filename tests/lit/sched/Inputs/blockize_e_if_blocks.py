sch.blockize([sch.get_block("D"), sch.get_block("E")])
