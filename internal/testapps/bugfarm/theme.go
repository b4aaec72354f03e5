package bugfarm

// kind is the input type of a record field.
type kind string

const (
	kText     kind = "text"
	kTextarea kind = "textarea"
	kEmail    kind = "email"
	kNumber   kind = "number"
	kDate     kind = "date"
	kURL      kind = "url"
	kTel      kind = "tel"
	kSelect   kind = "select"
	kRadio    kind = "radio"
	kCheckbox kind = "checkbox"
)

// field is one field of the app's record type.
type field struct {
	Key   string
	Label string
	Kind  kind
	// Min and Max bound a number (Min >= 1, so zero is out of range).
	Min, Max int
	// MaxLen is the column limit of a text field (0: none).
	MaxLen  int
	Options []string
	// Sample is a valid value a trigger types.
	Sample   string
	Required bool
}

// textual reports whether the field stores free text.
func (f field) textual() bool { return f.Kind == kText || f.Kind == kTextarea }

// theme is a domain: what the records are and what the app calls things.
type theme struct {
	Products []string // app names
	One      string   // record noun, singular
	Many     string   // record noun, plural
	Slugs    []string // collection path candidates
	Title    field    // the record's name; always present
	Extra    []field  // drawn per seed
	Samples  []string // seeded record names
	Prefs    []string // labels of toggles
	Views    []string // options of a view switcher
	Actions  []string // labels of JS buttons
}

// themes is the catalogue of domains. It is read-only.
func themes() []theme {
	return []theme{
		{
			Products: []string{"Shelfwise", "Stacks", "Folio Desk"},
			One:      "book", Many: "books", Slugs: []string{"books", "catalog", "shelf"},
			Title: field{Key: "title", Label: "Title", Kind: kText, MaxLen: 60, Sample: "Quiet Harbour", Required: true},
			Extra: []field{
				{Key: "author", Label: "Author", Kind: kText, MaxLen: 40, Sample: "Ines Park", Required: true},
				{Key: "pages", Label: "Pages", Kind: kNumber, Min: 1, Max: 5000, Sample: "320", Required: true},
				{Key: "published", Label: "Published on", Kind: kDate, Sample: "2021-04-12"},
				{Key: "genre", Label: "Genre", Kind: kSelect, Options: []string{"Fiction", "History", "Science", "Poetry"}, Sample: "History", Required: true},
				{Key: "borrower", Label: "Borrower email", Kind: kEmail, Sample: "reader@example.org"},
				{Key: "copies", Label: "Copies", Kind: kNumber, Min: 1, Max: 40, Sample: "3", Required: true},
				{Key: "notes", Label: "Notes", Kind: kTextarea, MaxLen: 400, Sample: "Signed first edition."},
				{Key: "link", Label: "Publisher page", Kind: kURL, Sample: "https://publisher.example/quiet"},
			},
			Samples: []string{"The Salt Road", "Northern Lights", "A Field Guide to Moss", "Letters from Riga", "Small Gods of Tin", "The Long Audit", "Winter Orchard", "Paper Tides"},
			Prefs:   []string{"Due-date reminders", "Show covers", "Hide withdrawn books"},
			Views:   []string{"All books", "On loan", "Overdue", "Reserved"},
			Actions: []string{"Recount shelves", "Refresh loans", "Sync catalogue"},
		},
		{
			Products: []string{"Stockroom", "Binventory", "Pallet"},
			One:      "item", Many: "items", Slugs: []string{"items", "stock", "inventory"},
			Title: field{Key: "name", Label: "Item name", Kind: kText, MaxLen: 50, Sample: "Hex bolt M8", Required: true},
			Extra: []field{
				{Key: "sku", Label: "SKU", Kind: kText, MaxLen: 16, Sample: "HB-0008", Required: true},
				{Key: "quantity", Label: "Quantity", Kind: kNumber, Min: 1, Max: 500, Sample: "24", Required: true},
				{Key: "price", Label: "Unit price (cents)", Kind: kNumber, Min: 1, Max: 100000, Sample: "125", Required: true},
				{Key: "supplier", Label: "Supplier email", Kind: kEmail, Sample: "orders@supplier.example"},
				{Key: "category", Label: "Category", Kind: kSelect, Options: []string{"Fasteners", "Tools", "Electrical", "Packaging"}, Sample: "Tools", Required: true},
				{Key: "restock", Label: "Restock date", Kind: kDate, Sample: "2025-11-03"},
				{Key: "hazard", Label: "Hazardous", Kind: kCheckbox, Sample: "on"},
				{Key: "notes", Label: "Storage notes", Kind: kTextarea, MaxLen: 300, Sample: "Keep dry."},
			},
			Samples: []string{"Cable ties", "Torx driver T20", "Bubble wrap roll", "Fuse 5A", "Wood screws 4x40", "Label printer tape", "Packing tape", "Wire nuts"},
			Prefs:   []string{"Low-stock alerts", "Show archived items", "Compact rows"},
			Views:   []string{"All items", "Low stock", "Reorder", "Discontinued"},
			Actions: []string{"Recalculate totals", "Refresh counts", "Sync warehouse"},
		},
		{
			Products: []string{"Clinicly", "Waiting Room", "CarePlan"},
			One:      "appointment", Many: "appointments", Slugs: []string{"appointments", "visits", "bookings"},
			Title: field{Key: "patient", Label: "Patient name", Kind: kText, MaxLen: 50, Sample: "Maria Olsen", Required: true},
			Extra: []field{
				{Key: "phone", Label: "Phone", Kind: kTel, Sample: "+44 20 7946 0958", Required: true},
				{Key: "email", Label: "Email", Kind: kEmail, Sample: "maria@example.org"},
				{Key: "day", Label: "Date", Kind: kDate, Sample: "2025-06-02", Required: true},
				{Key: "minutes", Label: "Duration (minutes)", Kind: kNumber, Min: 5, Max: 120, Sample: "30", Required: true},
				{Key: "department", Label: "Department", Kind: kSelect, Options: []string{"General", "Dental", "Physio", "Dermatology"}, Sample: "Dental", Required: true},
				{Key: "reason", Label: "Reason for visit", Kind: kTextarea, MaxLen: 500, Sample: "Annual check-up."},
				{Key: "first", Label: "First visit", Kind: kCheckbox, Sample: "on"},
			},
			Samples: []string{"Tomas Berg", "Aiko Sato", "Leon Duarte", "Grace Mensah", "Iris Novak", "Omar Haddad", "Ruth Ellis", "Pavel Kral"},
			Prefs:   []string{"SMS reminders", "Show cancelled", "Double-booking warning"},
			Views:   []string{"Today", "This week", "Waiting list", "Cancelled"},
			Actions: []string{"Refresh schedule", "Send reminders", "Recount slots"},
		},
		{
			Products: []string{"Gatherly", "Eventide", "Marquee"},
			One:      "event", Many: "events", Slugs: []string{"events", "agenda", "calendar"},
			Title: field{Key: "name", Label: "Event name", Kind: kText, MaxLen: 60, Sample: "Spring Meetup", Required: true},
			Extra: []field{
				{Key: "venue", Label: "Venue", Kind: kText, MaxLen: 40, Sample: "Old Town Hall", Required: true},
				{Key: "capacity", Label: "Capacity", Kind: kNumber, Min: 1, Max: 2000, Sample: "150", Required: true},
				{Key: "date", Label: "Date", Kind: kDate, Sample: "2025-09-19", Required: true},
				{Key: "contact", Label: "Contact email", Kind: kEmail, Sample: "host@example.org", Required: true},
				{Key: "type", Label: "Type", Kind: kSelect, Options: []string{"Talk", "Workshop", "Concert", "Fair"}, Sample: "Workshop", Required: true},
				{Key: "site", Label: "Website", Kind: kURL, Sample: "https://meetup.example/spring"},
				{Key: "description", Label: "Description", Kind: kTextarea, MaxLen: 600, Sample: "Talks and coffee."},
			},
			Samples: []string{"Harbour Jazz Night", "Repair Café", "Book Swap", "Night Market", "Data Dojo", "Choir Open Day", "Kite Festival", "Printmaking 101"},
			Prefs:   []string{"Email on sign-up", "Show past events", "Public calendar"},
			Views:   []string{"Upcoming", "Past", "Drafts", "Sold out"},
			Actions: []string{"Refresh attendance", "Recount seats", "Publish agenda"},
		},
		{
			Products: []string{"Mise", "Pantry Notes", "Saucier"},
			One:      "recipe", Many: "recipes", Slugs: []string{"recipes", "cookbook", "dishes"},
			Title: field{Key: "name", Label: "Recipe name", Kind: kText, MaxLen: 60, Sample: "Lentil soup", Required: true},
			Extra: []field{
				{Key: "servings", Label: "Servings", Kind: kNumber, Min: 1, Max: 24, Sample: "4", Required: true},
				{Key: "prep", Label: "Preparation (minutes)", Kind: kNumber, Min: 1, Max: 600, Sample: "45", Required: true},
				{Key: "cuisine", Label: "Cuisine", Kind: kSelect, Options: []string{"Italian", "Thai", "Mexican", "Nordic"}, Sample: "Nordic", Required: true},
				{Key: "source", Label: "Source", Kind: kURL, Sample: "https://recipes.example/lentil"},
				{Key: "author", Label: "Author", Kind: kText, MaxLen: 40, Sample: "Sam Ortiz"},
				{Key: "vegetarian", Label: "Vegetarian", Kind: kCheckbox, Sample: "on"},
				{Key: "steps", Label: "Method", Kind: kTextarea, MaxLen: 2000, Sample: "Simmer for 30 minutes."},
			},
			Samples: []string{"Green curry", "Rye bread", "Tomato tart", "Fish tacos", "Risotto", "Pea soup", "Apple cake", "Dal"},
			Prefs:   []string{"Metric units", "Show nutrition", "Hide drafts"},
			Views:   []string{"All recipes", "Quick", "Vegetarian", "Favourites"},
			Actions: []string{"Scale recipe", "Refresh pantry", "Recount ingredients"},
		},
		{
			Products: []string{"Helpdesk", "Triage", "Ticketbox"},
			One:      "ticket", Many: "tickets", Slugs: []string{"tickets", "issues", "requests"},
			Title: field{Key: "subject", Label: "Subject", Kind: kText, MaxLen: 70, Sample: "Printer offline", Required: true},
			Extra: []field{
				{Key: "reporter", Label: "Reporter email", Kind: kEmail, Sample: "it@example.org", Required: true},
				{Key: "priority", Label: "Priority", Kind: kSelect, Options: []string{"Low", "Normal", "High", "Urgent"}, Sample: "High", Required: true},
				{Key: "estimate", Label: "Estimate (hours)", Kind: kNumber, Min: 1, Max: 80, Sample: "2", Required: true},
				{Key: "due", Label: "Due date", Kind: kDate, Sample: "2025-03-14"},
				{Key: "phone", Label: "Call-back number", Kind: kTel, Sample: "+1 555 0100"},
				{Key: "details", Label: "Details", Kind: kTextarea, MaxLen: 1000, Sample: "Third floor printer shows error 49."},
				{Key: "asset", Label: "Asset tag", Kind: kText, MaxLen: 12, Sample: "LT-2231"},
			},
			Samples: []string{"VPN drops", "New laptop", "Password reset", "Broken chair", "Mail quota", "Badge not working", "Slow wifi", "Monitor flicker"},
			Prefs:   []string{"Notify on assignment", "Show closed tickets", "Auto-refresh queue"},
			Views:   []string{"Open", "Assigned to me", "Waiting", "Closed"},
			Actions: []string{"Refresh queue", "Recalculate SLA", "Sync assignees"},
		},
		{
			Products: []string{"Fleetline", "Garage Log", "Motorpool"},
			One:      "vehicle", Many: "vehicles", Slugs: []string{"vehicles", "fleet", "cars"},
			Title: field{Key: "plate", Label: "Licence plate", Kind: kText, MaxLen: 12, Sample: "KX21 ABC", Required: true},
			Extra: []field{
				{Key: "make", Label: "Make and model", Kind: kText, MaxLen: 40, Sample: "Volvo V60", Required: true},
				{Key: "year", Label: "Year", Kind: kNumber, Min: 1950, Max: 2026, Sample: "2019", Required: true},
				{Key: "seats", Label: "Seats", Kind: kNumber, Min: 1, Max: 60, Sample: "5", Required: true},
				{Key: "fuel", Label: "Fuel", Kind: kSelect, Options: []string{"Petrol", "Diesel", "Electric", "Hybrid"}, Sample: "Electric", Required: true},
				{Key: "service", Label: "Next service", Kind: kDate, Sample: "2025-10-01"},
				{Key: "driver", Label: "Driver email", Kind: kEmail, Sample: "driver@example.org"},
				{Key: "remarks", Label: "Remarks", Kind: kTextarea, MaxLen: 300, Sample: "Scratch on rear door."},
			},
			Samples: []string{"AB12 CDE", "LM70 XYZ", "GH19 KLM", "PQ65 RST", "UV22 WXY", "CD18 EFG", "JK71 MNO", "ST20 UVW"},
			Prefs:   []string{"Service reminders", "Show retired vehicles", "Track mileage"},
			Views:   []string{"All vehicles", "In service", "In the workshop", "Retired"},
			Actions: []string{"Refresh positions", "Recalculate mileage", "Sync telematics"},
		},
		{
			Products: []string{"Syllabus", "Lecture Hall", "Coursebook"},
			One:      "course", Many: "courses", Slugs: []string{"courses", "classes", "modules"},
			Title: field{Key: "title", Label: "Course title", Kind: kText, MaxLen: 60, Sample: "Intro to Statistics", Required: true},
			Extra: []field{
				{Key: "instructor", Label: "Instructor", Kind: kText, MaxLen: 40, Sample: "Dr. Ana Lopez", Required: true},
				{Key: "seats", Label: "Seats", Kind: kNumber, Min: 1, Max: 300, Sample: "40", Required: true},
				{Key: "credits", Label: "Credits", Kind: kNumber, Min: 1, Max: 10, Sample: "5", Required: true},
				{Key: "start", Label: "Start date", Kind: kDate, Sample: "2025-09-01"},
				{Key: "level", Label: "Level", Kind: kSelect, Options: []string{"Beginner", "Intermediate", "Advanced"}, Sample: "Beginner", Required: true},
				{Key: "syllabus", Label: "Syllabus link", Kind: kURL, Sample: "https://uni.example/stats"},
				{Key: "summary", Label: "Summary", Kind: kTextarea, MaxLen: 800, Sample: "Descriptive statistics and inference."},
			},
			Samples: []string{"Organic Chemistry", "Modern Poetry", "Linear Algebra", "Film Studies", "Ecology", "Macroeconomics", "Latin I", "Robotics Lab"},
			Prefs:   []string{"Waitlist notifications", "Show archived courses", "Weekly digest"},
			Views:   []string{"This term", "Next term", "Full", "Archived"},
			Actions: []string{"Refresh enrolment", "Recount seats", "Sync timetable"},
		},
		{
			Products: []string{"Greenhouse", "Leafy", "Potting Shed"},
			One:      "plant", Many: "plants", Slugs: []string{"plants", "garden", "beds"},
			Title: field{Key: "name", Label: "Plant name", Kind: kText, MaxLen: 50, Sample: "Monstera", Required: true},
			Extra: []field{
				{Key: "species", Label: "Species", Kind: kText, MaxLen: 60, Sample: "Monstera deliciosa"},
				{Key: "water", Label: "Water every (days)", Kind: kNumber, Min: 1, Max: 60, Sample: "7", Required: true},
				{Key: "height", Label: "Height (cm)", Kind: kNumber, Min: 1, Max: 900, Sample: "80", Required: true},
				{Key: "spot", Label: "Location", Kind: kSelect, Options: []string{"Window", "Balcony", "Greenhouse", "Office"}, Sample: "Balcony", Required: true},
				{Key: "repotted", Label: "Last repotted", Kind: kDate, Sample: "2024-05-20"},
				{Key: "outdoor", Label: "Outdoor", Kind: kCheckbox, Sample: "on"},
				{Key: "care", Label: "Care notes", Kind: kTextarea, MaxLen: 400, Sample: "Likes bright indirect light."},
			},
			Samples: []string{"Fiddle fig", "Basil", "Snake plant", "Olive tree", "Pothos", "Aloe", "Lavender", "Rosemary"},
			Prefs:   []string{"Watering reminders", "Show dormant plants", "Frost alerts"},
			Views:   []string{"All plants", "Thirsty", "Outdoor", "Indoor"},
			Actions: []string{"Refresh sensors", "Recalculate schedule", "Sync weather"},
		},
		{
			Products: []string{"Wayfarer", "Itinera", "Roam Desk"},
			One:      "trip", Many: "trips", Slugs: []string{"trips", "journeys", "travel"},
			Title: field{Key: "destination", Label: "Destination", Kind: kText, MaxLen: 50, Sample: "Lisbon", Required: true},
			Extra: []field{
				{Key: "travelers", Label: "Travellers", Kind: kNumber, Min: 1, Max: 12, Sample: "2", Required: true},
				{Key: "departure", Label: "Departure", Kind: kDate, Sample: "2025-07-04", Required: true},
				{Key: "budget", Label: "Budget (EUR)", Kind: kNumber, Min: 1, Max: 50000, Sample: "1800", Required: true},
				{Key: "contact", Label: "Emergency contact", Kind: kTel, Sample: "+49 30 901820"},
				{Key: "transport", Label: "Transport", Kind: kSelect, Options: []string{"Train", "Plane", "Car", "Ferry"}, Sample: "Train", Required: true},
				{Key: "agent", Label: "Agent email", Kind: kEmail, Sample: "agent@example.org"},
				{Key: "itinerary", Label: "Itinerary", Kind: kTextarea, MaxLen: 1200, Sample: "Day 1: Alfama walk."},
			},
			Samples: []string{"Kyoto", "Bergen", "Porto", "Tallinn", "Oaxaca", "Split", "Hanoi", "Galway"},
			Prefs:   []string{"Price alerts", "Show past trips", "Share with travellers"},
			Views:   []string{"Upcoming", "Booked", "Ideas", "Past"},
			Actions: []string{"Refresh fares", "Recalculate budget", "Sync bookings"},
		},
	}
}
