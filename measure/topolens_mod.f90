! Fortran bindings of the topolens measurement API (measure/include/topolens.h).
!
!   use topolens
!   if (topolens_region_enter('solver') /= 0) ...
!
! Every function returns what its C counterpart returns. Names are ordinary Fortran
! strings: trailing blanks are dropped (trim) and the terminating NUL is added here.
! topolens_cart_create takes PERIODS as INTEGER (0/1) or LOGICAL.
module topolens
    use, intrinsic :: iso_c_binding, only: c_int, c_char, c_null_char
    use, intrinsic :: iso_fortran_env, only: error_unit
    implicit none
    private

    public :: topolens_is_active, topolens_region_enter, topolens_region_leave
    public :: topolens_cart_create, topolens_cart_coords
    public :: topolens_tuned_op_define, topolens_codelet_switch, topolens_tuned_phase
    public :: topolens_tuned_decision, topolens_tuned_begin, topolens_tuned_end

    ! Phases of a runtime tuner (topolens_tuning_phase in topolens.h).
    integer, parameter, public :: TOPOLENS_PHASE_SEARCH = 0
    integer, parameter, public :: TOPOLENS_PHASE_DECISION = 1
    integer, parameter, public :: TOPOLENS_PHASE_PRODUCTION = 2

    interface topolens_cart_create
        module procedure cart_create_integer_periods, cart_create_logical_periods
    end interface topolens_cart_create

    ! ndims of each topology handle returned here (handles count from 1), so that
    ! topolens_cart_coords can refuse a coords array shorter than its topology.
    integer, allocatable, save :: handle_ndims(:)

    ! Argument problems are reported once per process, as the C API does.
    integer, parameter :: SHORT_DIMS = 1, SHORT_COORDS = 2
    logical, save :: warned(2) = .false.

    ! The C functions.
    interface
        function c_is_active() bind(C, name="topolens_is_active") result(r)
            import :: c_int
            integer(c_int) :: r
        end function c_is_active

        function c_region_enter(name) bind(C, name="topolens_region_enter") result(r)
            import :: c_int, c_char
            character(kind=c_char), dimension(*), intent(in) :: name
            integer(c_int) :: r
        end function c_region_enter

        function c_region_leave(name) bind(C, name="topolens_region_leave") result(r)
            import :: c_int, c_char
            character(kind=c_char), dimension(*), intent(in) :: name
            integer(c_int) :: r
        end function c_region_leave

        function c_cart_create(name, ndims, dims, periods) &
                bind(C, name="topolens_cart_create") result(r)
            import :: c_int, c_char
            character(kind=c_char), dimension(*), intent(in) :: name
            integer(c_int), value :: ndims
            integer(c_int), dimension(*), intent(in) :: dims, periods
            integer(c_int) :: r
        end function c_cart_create

        function c_cart_coords(topology, coords) bind(C, name="topolens_cart_coords") result(r)
            import :: c_int
            integer(c_int), value :: topology
            integer(c_int), dimension(*), intent(in) :: coords
            integer(c_int) :: r
        end function c_cart_coords

        function c_tuned_op_define(name) bind(C, name="topolens_tuned_op_define") result(r)
            import :: c_int, c_char
            character(kind=c_char), dimension(*), intent(in) :: name
            integer(c_int) :: r
        end function c_tuned_op_define

        function c_codelet_switch(op, index, name) &
                bind(C, name="topolens_codelet_switch") result(r)
            import :: c_int, c_char
            integer(c_int), value :: op, index
            character(kind=c_char), dimension(*), intent(in) :: name
            integer(c_int) :: r
        end function c_codelet_switch

        ! The C enum is passed as an int.
        function c_tuned_phase(op, phase) bind(C, name="topolens_tuned_phase") result(r)
            import :: c_int
            integer(c_int), value :: op, phase
            integer(c_int) :: r
        end function c_tuned_phase

        function c_tuned_decision(op, index, name) &
                bind(C, name="topolens_tuned_decision") result(r)
            import :: c_int, c_char
            integer(c_int), value :: op, index
            character(kind=c_char), dimension(*), intent(in) :: name
            integer(c_int) :: r
        end function c_tuned_decision

        function c_tuned_begin(op) bind(C, name="topolens_tuned_begin") result(r)
            import :: c_int
            integer(c_int), value :: op
            integer(c_int) :: r
        end function c_tuned_begin

        function c_tuned_end(op) bind(C, name="topolens_tuned_end") result(r)
            import :: c_int
            integer(c_int), value :: op
            integer(c_int) :: r
        end function c_tuned_end
    end interface

contains

    ! A NUL-terminated copy of a Fortran string without its trailing blanks.
    pure function c_string(s) result(r)
        character(len=*), intent(in) :: s
        character(kind=c_char, len=len_trim(s) + 1) :: r
        r = trim(s)//c_null_char
    end function c_string

    subroutine warn_once(which, message)
        integer, intent(in) :: which
        character(len=*), intent(in) :: message
        if (warned(which)) return
        warned(which) = .true.
        write (error_unit, '(a)') 'topolens: '//message
    end subroutine warn_once

    integer function topolens_is_active()
        topolens_is_active = c_is_active()
    end function topolens_is_active

    integer function topolens_region_enter(name)
        character(len=*), intent(in) :: name
        topolens_region_enter = c_region_enter(c_string(name))
    end function topolens_region_enter

    integer function topolens_region_leave(name)
        character(len=*), intent(in) :: name
        topolens_region_leave = c_region_leave(c_string(name))
    end function topolens_region_leave

    ! The C function reads ndims entries of dims and periods: shorter arrays are refused
    ! here rather than read past their end.
    integer function cart_create_integer_periods(name, ndims, dims, periods) result(topology)
        character(len=*), intent(in) :: name
        integer, intent(in) :: ndims
        integer, intent(in) :: dims(:), periods(:)
        topology = 0
        if (ndims > size(dims) .or. ndims > size(periods)) then
            call warn_once(SHORT_DIMS, 'topolens_cart_create: dims or periods has fewer '// &
                           'than ndims entries; topology not recorded')
            return
        end if
        topology = c_cart_create(c_string(name), int(ndims, c_int), &
                                 int(dims(1:max(ndims, 0)), c_int), &
                                 int(periods(1:max(ndims, 0)), c_int))
        if (topology > 0) call remember_ndims(topology, ndims)
    end function cart_create_integer_periods

    subroutine remember_ndims(topology, ndims)
        integer, intent(in) :: topology, ndims
        integer, allocatable :: grown(:)
        if (.not. allocated(handle_ndims)) allocate (handle_ndims(0))
        if (topology > size(handle_ndims)) then
            allocate (grown(max(topology, 2*size(handle_ndims))))
            grown = 0
            grown(1:size(handle_ndims)) = handle_ndims
            call move_alloc(grown, handle_ndims)
        end if
        handle_ndims(topology) = ndims
    end subroutine remember_ndims

    integer function cart_create_logical_periods(name, ndims, dims, periods) result(topology)
        character(len=*), intent(in) :: name
        integer, intent(in) :: ndims
        integer, intent(in) :: dims(:)
        logical, intent(in) :: periods(:)
        topology = cart_create_integer_periods(name, ndims, dims, merge(1, 0, periods))
    end function cart_create_logical_periods

    ! coords has one entry per dimension of the topology; the C function checks the values
    ! and the handle.
    integer function topolens_cart_coords(topology, coords)
        integer, intent(in) :: topology
        integer, intent(in) :: coords(:)
        topolens_cart_coords = -1
        if (allocated(handle_ndims)) then
            if (topology >= 1 .and. topology <= size(handle_ndims)) then
                if (size(coords) < handle_ndims(topology)) then
                    call warn_once(SHORT_COORDS, 'topolens_cart_coords: coords has fewer '// &
                                   'entries than the topology has dimensions; ignored')
                    return
                end if
            end if
        end if
        topolens_cart_coords = c_cart_coords(int(topology, c_int), int(coords, c_int))
    end function topolens_cart_coords

    integer function topolens_tuned_op_define(name)
        character(len=*), intent(in) :: name
        topolens_tuned_op_define = c_tuned_op_define(c_string(name))
    end function topolens_tuned_op_define

    integer function topolens_codelet_switch(op, index, name)
        integer, intent(in) :: op, index
        character(len=*), intent(in) :: name
        topolens_codelet_switch = c_codelet_switch(int(op, c_int), int(index, c_int), &
                                                   c_string(name))
    end function topolens_codelet_switch

    integer function topolens_tuned_phase(op, phase)
        integer, intent(in) :: op, phase
        topolens_tuned_phase = c_tuned_phase(int(op, c_int), int(phase, c_int))
    end function topolens_tuned_phase

    integer function topolens_tuned_decision(op, index, name)
        integer, intent(in) :: op, index
        character(len=*), intent(in) :: name
        topolens_tuned_decision = c_tuned_decision(int(op, c_int), int(index, c_int), &
                                                   c_string(name))
    end function topolens_tuned_decision

    integer function topolens_tuned_begin(op)
        integer, intent(in) :: op
        topolens_tuned_begin = c_tuned_begin(int(op, c_int))
    end function topolens_tuned_begin

    integer function topolens_tuned_end(op)
        integer, intent(in) :: op
        topolens_tuned_end = c_tuned_end(int(op, c_int))
    end function topolens_tuned_end

end module topolens
