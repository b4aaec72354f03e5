package bugfarm

// The idioms a generated app may have. App.Idioms lists those present, in
// this order.
const (
	IdiomTopNav       Idiom = "top_nav"                // a navigation bar above the content
	IdiomSidebar      Idiom = "sidebar_nav"            // a navigation column beside the content
	IdiomCards        Idiom = "card_nav"               // the home page links to sections through cards
	IdiomDropdownNav  Idiom = "dropdown_nav"           // a "More" button opens a menu of links
	IdiomRevealLinks  Idiom = "reveal_links"           // some links appear only after a click
	IdiomPagination   Idiom = "pagination"             // the list is split into pages
	IdiomControls     Idiom = "controls_outside_forms" // select, checkbox, radio and buttons acting through JS, in no form
	IdiomRoleButtons  Idiom = "role_buttons"           // div/span role=button and a href="#" with click handlers
	IdiomClientRouter Idiom = "client_router"          // a view switched with history.pushState
	IdiomHashRoutes   Idiom = "hash_routes"            // a view switched with "#/" routes
	IdiomShadowDOM    Idiom = "shadow_dom"             // a web component with an open shadow root
	IdiomIframe       Idiom = "iframe"                 // a same-origin iframe with controls
	IdiomHoverReveal  Idiom = "hover_reveal"           // row actions shown on hover or focus
	IdiomModal        Idiom = "modal"                  // a dialog opened by a button
	IdiomCombobox     Idiom = "combobox"               // an ARIA combobox with a custom listbox
	IdiomDblClickEdit Idiom = "dblclick_edit"          // double-click a value to edit it in place
	IdiomKeyboardOnly Idiom = "keyboard_only"          // Enter in an input with no button, Escape to clear
	IdiomSignIn       Idiom = "sign_in"                // pages need a session cookie
	IdiomMultiStep    Idiom = "multi_step"             // records are created through a three-step wizard
	IdiomFileUpload   Idiom = "file_upload"            // the record form takes a file
	IdiomFetchForms   Idiom = "fetch_forms"            // the create form posts through fetch() and follows the answer
	IdiomSearch       Idiom = "search"                 // a search page
	IdiomCardList     Idiom = "cards_list"             // the list shows cards instead of a table
)

// allIdioms is the order of App.Idioms.
func allIdioms() []Idiom {
	return []Idiom{
		IdiomTopNav, IdiomSidebar, IdiomCards, IdiomDropdownNav, IdiomRevealLinks, IdiomPagination,
		IdiomControls, IdiomRoleButtons, IdiomClientRouter, IdiomHashRoutes, IdiomShadowDOM, IdiomIframe,
		IdiomHoverReveal, IdiomModal, IdiomCombobox, IdiomDblClickEdit, IdiomKeyboardOnly, IdiomSignIn,
		IdiomMultiStep, IdiomFileUpload, IdiomFetchForms, IdiomSearch, IdiomCardList,
	}
}
