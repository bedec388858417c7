sQh.tr`nsfo i,/!t_le))
