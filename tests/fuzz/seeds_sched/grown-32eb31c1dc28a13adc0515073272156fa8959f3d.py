# The producer P writes a function parameter that the consumer Q reads.
@T.prim_func
def main(A: T.Buffer((8,), "float32"), O: T.Buffer((8,), "float32"), R: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("P"):
            vi = T.axis.spatial(8, i)
            O[vi] = A[vi] * T.float32(2)
    for i in range(8)  
  :    with T.block("Q"):
            vi = T.axis.spatial(8, i)
            R[vi] = O[vi] + T.float32(1)
