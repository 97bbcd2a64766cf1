package api

// List is the shape of every list response: a page of items and the
// cursor of the next page (null on the last page).
type List[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}
