! A Fortran program compiled with topolens-fc: MAIN__ -> compute x 3 -> MPI_Allreduce.
module work
    use mpi
    implicit none
contains
    integer function compute(value)
        integer, intent(in) :: value
        integer :: ierr
        call MPI_Allreduce(value, compute, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    end function compute
end module work

program instrumented_fortran
    use mpi
    use work
    implicit none
    integer :: ierr, rank, i, total
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    total = 0
    do i = 1, 3
        total = total + compute(rank + i)
    end do
    if (rank == 0) print '(a,i0)', 'total=', total
    call MPI_Finalize(ierr)
end program instrumented_fortran
