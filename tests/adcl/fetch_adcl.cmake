# Fetches ADCL's pinned upstream source archive, in script mode:
#   cmake -DURL=... -DDESTINATION=FILE [-DTIMEOUT=SECONDS] -P fetch_adcl.cmake
# Writes DESTINATION when the download succeeded and is an archive of ADCL's sources (its
# `configure` inside); otherwise leaves none and prints one line "ADCL not fetched: <why>".
# It never fails: a missing network, a DNS failure, a proxy's error page or a stalled
# connection only mean the ADCL tests are skipped. TIMEOUT bounds the whole download,
# connecting included (curl's inactivity timeout does not cover connecting).
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 30)
endif()
set(partial "${DESTINATION}.part")
file(REMOVE "${partial}")
file(DOWNLOAD "${URL}" "${partial}" TIMEOUT ${TIMEOUT} INACTIVITY_TIMEOUT 10 STATUS status)
list(GET status 0 code)
list(GET status 1 reason)
if(NOT code EQUAL 0)
  file(REMOVE "${partial}")
  message("ADCL not fetched: ${URL}: ${reason} (within ${TIMEOUT} s)")
  return()
endif()
# A proxy or a captive portal may answer with a page: only an archive of ADCL will do.
execute_process(COMMAND tar tzf "${partial}" RESULT_VARIABLE listed OUTPUT_VARIABLE entries
                ERROR_QUIET)
if(NOT listed EQUAL 0 OR NOT entries MATCHES "(^|\n)([.]/)?[^/\n]+/configure\n")
  file(REMOVE "${partial}")
  message("ADCL not fetched: ${URL} did not give an archive of ADCL's sources")
  return()
endif()
file(RENAME "${partial}" "${DESTINATION}")
message("ADCL fetched: ${DESTINATION}")
