// The libcurl functions StreamPlay calls, one line each, for CCurl.h (which declares each as
// `sp_` and its libcurl name) and loader.c (which finds each in libcurl and forwards to it).
// Included textually, with SP_CURL_FUNCTION (a function that returns a value) and
// SP_CURL_PROCEDURE (one that returns nothing) defined by the includer:
//   (return type, name, parameters, arguments)
// loader.c checks at compile time that each type is the one curl.h declares. The variadic
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are not here: CCurl.h gives them
// typed entry points of their own.

SP_CURL_FUNCTION(CURL *, curl_easy_init, (void), ())
SP_CURL_PROCEDURE(curl_easy_cleanup, (CURL *handle), (handle))
SP_CURL_FUNCTION(CURLcode, curl_easy_pause, (CURL *handle, int bitmask), (handle, bitmask))
SP_CURL_FUNCTION(const char *, curl_easy_strerror, (CURLcode code), (code))
SP_CURL_FUNCTION(CURLM *, curl_multi_init, (void), ())
SP_CURL_FUNCTION(CURLMcode, curl_multi_cleanup, (CURLM *multi), (multi))
SP_CURL_FUNCTION(CURLMcode, curl_multi_add_handle, (CURLM *multi, CURL *handle), (multi, handle))
SP_CURL_FUNCTION(CURLMcode, curl_multi_remove_handle, (CURLM *multi, CURL *handle), (multi, handle))
SP_CURL_FUNCTION(CURLMcode, curl_multi_perform, (CURLM *multi, int *running), (multi, running))
SP_CURL_FUNCTION(CURLMcode, curl_multi_poll, (CURLM *multi, struct curl_waitfd extra_fds[], unsigned int extra_nfds, int timeout_ms, int *ret), (multi, extra_fds, extra_nfds, timeout_ms, ret))
SP_CURL_FUNCTION(CURLMcode, curl_multi_wakeup, (CURLM *multi), (multi))
SP_CURL_FUNCTION(CURLMsg *, curl_multi_info_read, (CURLM *multi, int *msgs_in_queue), (multi, msgs_in_queue))
SP_CURL_FUNCTION(struct curl_slist *, curl_slist_append, (struct curl_slist *list, const char *string), (list, string))
SP_CURL_PROCEDURE(curl_slist_free_all, (struct curl_slist *list), (list))
SP_CURL_FUNCTION(curl_mime *, curl_mime_init, (CURL *easy), (easy))
SP_CURL_PROCEDURE(curl_mime_free, (curl_mime *mime), (mime))
SP_CURL_FUNCTION(curl_mimepart *, curl_mime_addpart, (curl_mime *mime), (mime))
SP_CURL_FUNCTION(CURLcode, curl_mime_name, (curl_mimepart *part, const char *name), (part, name))
SP_CURL_FUNCTION(CURLcode, curl_mime_type, (curl_mimepart *part, const char *mimetype), (part, mimetype))
SP_CURL_FUNCTION(CURLcode, curl_mime_filename, (curl_mimepart *part, const char *filename), (part, filename))
SP_CURL_FUNCTION(CURLcode, curl_mime_data, (curl_mimepart *part, const char *data, size_t datasize), (part, data, datasize))
SP_CURL_FUNCTION(CURLcode, curl_mime_filedata, (curl_mimepart *part, const char *filename), (part, filename))
