! Halo exchange on a 2D or 3D process grid that the program lays out itself, without
! MPI_Cart_create, recording the grid through the topolens Fortran module (see README.md).
!
! One source, two programs: fortran_grid (use mpi) and, compiled with -DTOPOLENS_F08,
! fortran_grid_f08 (use mpi_f08). Only the request handle type differs between them.
#ifdef TOPOLENS_F08
#define REQUEST_T type(MPI_Request)
#define PROGRAM_NAME 'fortran_grid_f08'
#else
#define REQUEST_T integer
#define PROGRAM_NAME 'fortran_grid'
#endif

program fortran_grid
#ifdef TOPOLENS_F08
    use mpi_f08
#else
    use mpi
#endif
    use topolens
    implicit none

    integer, parameter :: nfields = 7 ! per-rank record gathered for --expect
    integer :: ierr, rank, nprocs, ndims, steps, edge, nface, topo, step, d, i
    integer :: dims(3), periods(3), coords(3), lower(3), upper(3)
    integer :: nsends, nrecvs, ncolls, nreq
    logical :: periodic_given, want_expect
    character(len=256) :: expect_file, err
    double precision :: checksum, total, change
    double precision, allocatable :: field(:), sendbuf(:, :), recvbuf(:, :)
    REQUEST_T :: requests(4)
    integer :: mine(nfields)
    integer, allocatable :: everyone(:)
    character(len=*), parameter :: usage = 'usage: '//PROGRAM_NAME// &
        ' [--ndims 2|3] [--steps N] [--edge CELLS] [--periods 0/1 per dim] [--expect FILE]'
    character(len=64) :: shape

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

    call parse_arguments(ndims, steps, edge, periods, periodic_given, want_expect, expect_file, err)
    if (len_trim(err) > 0) then
        if (rank == 0) then
            if (err == 'help') then
                write (*, '(a)') usage
            else
                write (0, '(a)') PROGRAM_NAME//': '//trim(err)
                write (0, '(a)') usage
            end if
        end if
        call MPI_Finalize(ierr)
        if (err == 'help') stop
        stop 2
    end if

    ! The grid: MPI_Dims_create only factors the process count; the layout is our own,
    ! x fastest (rank = x + dims(1)*(y + dims(2)*z)), as in codes that predate MPI topologies.
    dims = 1
    dims(1:ndims) = 0
    call MPI_Dims_create(nprocs, ndims, dims, ierr)
    coords = 0
    coords(1) = mod(rank, dims(1))
    coords(2) = mod(rank/dims(1), dims(2))
    coords(3) = rank/(dims(1)*dims(2))
    do d = 1, ndims
        lower(d) = neighbour(d, -1)
        upper(d) = neighbour(d, +1)
    end do

    topo = topolens_cart_create('fortran_grid', ndims, dims(1:ndims), periods(1:ndims))
    if (topo > 0) then
        ierr = topolens_cart_coords(topo, coords(1:ndims))
    else if (rank == 0) then
        write (0, '(a)') PROGRAM_NAME//': measurement inactive, topology not recorded'
    end if

    ! One face of edge**(ndims-1) values per neighbour; the block itself is reduced to
    ! its faces, which is all the halo exchange moves.
    nface = edge**(ndims - 1)
    allocate (field(nface), sendbuf(nface, 2*ndims), recvbuf(nface, 2*ndims))
    field = dble(rank)
    recvbuf = 0d0
    nsends = 0
    nrecvs = 0
    ncolls = 0
    change = 0d0

    do step = 1, steps
        do d = 1, ndims
            sendbuf(:, 2*d - 1) = field
            sendbuf(:, 2*d) = field
            if (periods(d) /= 0) then
                ! Periodic dimension: both neighbours always exist, a shift each way.
                call MPI_Sendrecv(sendbuf(:, 2*d), nface, MPI_DOUBLE_PRECISION, upper(d), 10*d, &
                                  recvbuf(:, 2*d - 1), nface, MPI_DOUBLE_PRECISION, lower(d), 10*d, &
                                  MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
                call MPI_Sendrecv(sendbuf(:, 2*d - 1), nface, MPI_DOUBLE_PRECISION, lower(d), &
                                  10*d + 1, recvbuf(:, 2*d), nface, MPI_DOUBLE_PRECISION, &
                                  upper(d), 10*d + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
                nsends = nsends + 2
                nrecvs = nrecvs + 2
            else
                ! Open boundary: exchange only with the neighbours that exist.
                nreq = 0
                if (lower(d) >= 0) then
                    nreq = nreq + 1
                    call MPI_Irecv(recvbuf(:, 2*d - 1), nface, MPI_DOUBLE_PRECISION, lower(d), &
                                   10*d, MPI_COMM_WORLD, requests(nreq), ierr)
                    nrecvs = nrecvs + 1
                end if
                if (upper(d) >= 0) then
                    nreq = nreq + 1
                    call MPI_Irecv(recvbuf(:, 2*d), nface, MPI_DOUBLE_PRECISION, upper(d), &
                                   10*d + 1, MPI_COMM_WORLD, requests(nreq), ierr)
                    nrecvs = nrecvs + 1
                end if
                if (upper(d) >= 0) then
                    nreq = nreq + 1
                    call MPI_Isend(sendbuf(:, 2*d), nface, MPI_DOUBLE_PRECISION, upper(d), &
                                   10*d, MPI_COMM_WORLD, requests(nreq), ierr)
                    nsends = nsends + 1
                end if
                if (lower(d) >= 0) then
                    nreq = nreq + 1
                    call MPI_Isend(sendbuf(:, 2*d - 1), nface, MPI_DOUBLE_PRECISION, lower(d), &
                                   10*d + 1, MPI_COMM_WORLD, requests(nreq), ierr)
                    nsends = nsends + 1
                end if
                if (nreq > 0) call MPI_Waitall(nreq, requests, MPI_STATUSES_IGNORE, ierr)
            end if
        end do
        ! Relax towards the neighbours' mean (missing neighbours contribute 0).
        do i = 1, nface
            total = 0.5d0*field(i) + 0.5d0*sum(recvbuf(i, :))/dble(2*ndims)
            change = max(change, abs(total - field(i)))
            field(i) = total
        end do
    end do

    checksum = sum(field)
    call MPI_Allreduce(checksum, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    ncolls = ncolls + 1

    if (want_expect) then
        ncolls = ncolls + 1 ! the gather below is traced too
        mine = [rank, nsends, nrecvs, ncolls, coords(1), coords(2), coords(3)]
        allocate (everyone(nfields*nprocs))
        call MPI_Gather(mine, nfields, MPI_INTEGER, everyone, nfields, MPI_INTEGER, 0, &
                        MPI_COMM_WORLD, ierr)
        if (rank == 0) call write_expect(topo > 0)
    end if

    if (rank == 0) then
        write (shape, '(i0,2(:,"x",i0))') dims(1:ndims)
        write (*, '(a,i0,a,i0,a,es12.5)') PROGRAM_NAME//': '//trim(shape)//' grid (', ndims, &
            'D), ', steps, ' halo steps, checksum ', total
    end if
    call MPI_Finalize(ierr)

contains

    ! Rank of the neighbour one step along dimension d (dir = -1 or +1), -1 if there is
    ! none at an open boundary.
    integer function neighbour(d, dir)
        integer, intent(in) :: d, dir
        integer :: c(3)
        c = coords
        c(d) = c(d) + dir
        if (c(d) < 0 .or. c(d) >= dims(d)) then
            if (periods(d) == 0) then
                neighbour = -1
                return
            end if
            c(d) = modulo(c(d), dims(d))
        end if
        neighbour = c(1) + dims(1)*(c(2) + dims(2)*c(3))
    end function neighbour

    subroutine parse_arguments(ndims, steps, edge, periods, periodic_given, want_expect, &
                               expect_file, err)
        integer, intent(out) :: ndims, steps, edge, periods(3)
        logical, intent(out) :: periodic_given, want_expect
        character(len=*), intent(out) :: expect_file, err
        character(len=256) :: arg, val
        integer :: i, n, stat, k, nperiods

        ndims = 2
        nperiods = 0
        steps = 20
        edge = 32
        periods = 0
        periods(1) = 1 ! default: periodic along x only
        periodic_given = .false.
        want_expect = .false.
        expect_file = ''
        err = ''
        n = command_argument_count()
        i = 1
        do while (i <= n)
            call get_command_argument(i, arg)
            if (trim(arg) == '--help') then
                err = 'help'
                return
            end if
            if (i == n) then
                err = trim(arg)//': unknown option or missing value'
                return
            end if
            call get_command_argument(i + 1, val)
            select case (trim(arg))
            case ('--ndims')
                read (val, *, iostat=stat) ndims
                if (stat /= 0 .or. ndims < 2 .or. ndims > 3) err = '--ndims must be 2 or 3'
            case ('--steps')
                read (val, *, iostat=stat) steps
                if (stat /= 0 .or. steps < 1) err = '--steps must be >= 1'
            case ('--edge')
                read (val, *, iostat=stat) edge
                if (stat /= 0 .or. edge < 1 .or. edge > 4096) err = '--edge must be in 1..4096'
            case ('--periods')
                periodic_given = .true.
                periods = 0
                nperiods = len_trim(val)
                do k = 1, nperiods
                    if (k > 3 .or. (val(k:k) /= '0' .and. val(k:k) /= '1')) then
                        err = '--periods takes one 0 or 1 per dimension, e.g. 10'
                        return
                    end if
                    if (val(k:k) == '1') periods(k) = 1
                end do
            case ('--expect')
                want_expect = .true.
                expect_file = val
            case default
                err = 'unknown option '//trim(arg)
            end select
            if (len_trim(err) > 0) return
            i = i + 2
        end do
        if (periodic_given .and. nperiods /= ndims) err = '--periods needs one digit per dimension'
    end subroutine parse_arguments

    subroutine write_expect(recorded)
        logical, intent(in) :: recorded
        integer :: u, r, ios
        integer :: v(nfields)
        open (newunit=u, file=trim(expect_file), status='replace', action='write', iostat=ios)
        if (ios /= 0) then
            write (0, '(a)') PROGRAM_NAME//': cannot write '//trim(expect_file)
            return
        end if
        write (u, '(a)') '# topolens expected trace content'
        write (u, '(a)') 'sample '//PROGRAM_NAME
        write (u, '(a,i0)') 'ranks ', nprocs
        if (recorded) then
            write (u, '(a)') 'topology fortran_grid'
            write (u, '(a,i0)') 'ndims ', ndims
            write (u, '(a,*(1x,i0))') 'dims', dims(1:ndims)
            write (u, '(a,*(1x,i0))') 'periods', periods(1:ndims)
        else
            write (u, '(a)') 'topology none'
        end if
        do r = 0, nprocs - 1
            v = everyone(nfields*r + 1:nfields*r + nfields)
            ! topo_rank = world rank: a user topology lives on MPI_COMM_WORLD
            write (u, '(a,i0,a,i0,a,i0,a,i0,a,i0)', advance='no') 'rank ', v(1), ' topo_rank ', &
                v(1), ' sends ', v(2), ' recvs ', v(3), ' collectives ', v(4)
            if (recorded) then
                write (u, '(a,*(1x,i0))') ' coords', v(5:4 + ndims)
            else
                write (u, '(a)') ''
            end if
        end do
        close (u)
    end subroutine write_expect

end program fortran_grid
