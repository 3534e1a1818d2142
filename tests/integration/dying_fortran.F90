! MPI_ABORT from Fortran (use mpi, or use mpi_f08 with -DTOPOLENS_F08): rank 1 aborts with
! error code 3 after 5 ring exchanges; the others block in the next one.
program dying_fortran
#ifdef TOPOLENS_F08
    use mpi_f08
#else
    use mpi
#endif
    implicit none
    integer :: rank, size, it, ierr, right, left
    double precision :: out(8), in(8)
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
    right = mod(rank + 1, size)
    left = mod(rank + size - 1, size)
    out = 1.0d0
    do it = 0, 9
        if (it == 5 .and. rank == 1) call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
        call MPI_Sendrecv(out, 8, MPI_DOUBLE_PRECISION, right, 7, in, 8, &
                          MPI_DOUBLE_PRECISION, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end do
    call MPI_Finalize(ierr)
end program dying_fortran
