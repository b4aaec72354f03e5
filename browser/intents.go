package browser

// Click is the intent to click the element target names (a snapshot ref
// such as "e12", or a selector).
func Click(target string) Intent { return Intent{Action: ActClick, Target: target} }

// Fill is the intent to type value into the field target names.
func Fill(target, value string) Intent { return Intent{Action: ActFill, Target: target, Value: &value} }

// Navigate is the intent to open url (absolute, or a path on the app).
func Navigate(url string) Intent { return Intent{Action: ActNavigate, URL: url} }
