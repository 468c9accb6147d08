-- A static POST, as wrk's post.lua: only the wrk table changes, no hook is defined.

wrk.method = "POST"
wrk.body = "name=hail&kind=load+generator"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
