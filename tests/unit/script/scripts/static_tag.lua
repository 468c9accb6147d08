-- hail.tag in init() without a request function: it labels the static request.

function init(args)
  hail.tag("home")
end
