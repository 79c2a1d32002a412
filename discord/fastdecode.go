package discord

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// fastInteraction decodes body (its message cut out: cutMessage) into
// what encoding/json and discordgo would make of it, without reflection,
// for the interactions Discord sends: a command, an autocomplete or a
// click, by a member or a user, with what the bot reads and the fields
// it does not (skipped, as encoding/json skips them). It reports false
// for anything else, and then decoded nothing: a key that differs from a
// field's only in case or escapes, a key twice, a string with an escape,
// a number that is not a plain integer where one is wanted, a modal
// submit, resolved data, entitlements… DecodeInteraction then decodes
// body with encoding/json, which says what is wrong with it if anything.
// FuzzDecodeInteraction holds the two to the same results.
func fastInteraction(body []byte) (*discordgo.Interaction, bool) {
	i := new(discordgo.Interaction)
	data := []byte(nil)
	// data's null is decoded below (keepNull 3).
	ok := eachField(body, interactionKeys, 3, func(k int, v []byte) bool {
		var ok bool
		switch k {
		case 0:
			i.ID, ok = jsonString(v)
		case 1:
			i.AppID, ok = jsonString(v)
		case 2:
			var n uint64
			n, ok = jsonUint(v, math.MaxUint8)
			i.Type = discordgo.InteractionType(n)
		case 3:
			data, ok = v, true
		case 4:
			i.GuildID, ok = jsonString(v)
		case 5:
			i.ChannelID, ok = jsonString(v)
		case 6:
			ok = false // a message not cut out: encoding/json decodes it
		case 7:
			var n uint64
			n, ok = jsonQuotedUint(v)
			i.AppPermissions = int64(n)
		case 8:
			i.Member, ok = fastMember(v)
		case 9:
			i.User, ok = fastUser(v)
		case 10:
			var s string
			s, ok = jsonString(v)
			i.Locale = discordgo.Locale(s)
		case 11:
			var s string
			s, ok = jsonString(v)
			l := discordgo.Locale(s)
			i.GuildLocale = &l
		case 12:
			var n uint64
			n, ok = jsonUint(v, math.MaxUint)
			i.Context = discordgo.InteractionContextType(n)
		case 13:
			i.AuthorizingIntegrationOwners, ok = fastOwners(v)
		case 14:
			i.Token, ok = jsonString(v)
		case 15:
			var n uint64
			n, ok = jsonUint(v, math.MaxInt)
			i.Version = int(n)
		case 16:
			ok = emptyArray(v)
			i.Entitlements = []*discordgo.Entitlement{}
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	switch i.Type {
	case discordgo.InteractionApplicationCommand, discordgo.InteractionApplicationCommandAutocomplete:
		if data == nil {
			return nil, false // required: encoding/json says so
		}
		d, ok := fastCommandData(data)
		if !ok {
			return nil, false
		}
		i.Data = d
	case discordgo.InteractionMessageComponent:
		if data == nil {
			return nil, false
		}
		d, ok := fastComponentData(data)
		if !ok {
			return nil, false
		}
		i.Data = d
	case discordgo.InteractionModalSubmit:
		return nil, false // with Labels: decodeModalSubmit
	default:
		if data != nil && !json.Valid(data) {
			return nil, false
		}
	}
	return i, true
}

// The JSON keys of the fields of discordgo's types, in the order of the
// cases that decode them.
var (
	interactionKeys = []string{"id", "application_id", "type", "data", "guild_id", "channel_id", "message", "app_permissions",
		"member", "user", "locale", "guild_locale", "context", "authorizing_integration_owners", "token", "version", "entitlements"}
	memberKeys = []string{"guild_id", "joined_at", "nick", "deaf", "mute", "avatar", "banner", "user", "roles", "premium_since",
		"flags", "pending", "permissions", "communication_disabled_until"}
	userKeys = []string{"id", "email", "username", "avatar", "locale", "discriminator", "global_name", "token", "verified",
		"mfa_enabled", "banner", "accent_color", "bot", "public_flags", "premium_type", "system", "flags"}
	commandKeys   = []string{"id", "name", "type", "resolved", "options", "target_id"}
	optionKeys    = []string{"name", "type", "value", "options", "focused"}
	componentKeys = []string{"custom_id", "component_type", "resolved", "values"}
)

// unknownKey and foldedKey are fieldIndex's answers for a key of no
// field, which encoding/json skips, and for one that encoding/json
// would match to a field though it is not spelled as its key (another
// case, an escape).
const (
	unknownKey = -1
	foldedKey  = -2
)

// fieldIndex returns the index in keys of key, spelled exactly so, or
// unknownKey or foldedKey.
func fieldIndex(key []byte, keys []string) int {
	for k, name := range keys {
		if string(key) == name {
			return k
		}
	}
	if bytes.IndexByte(key, '\\') >= 0 {
		return foldedKey
	}
	for _, name := range keys {
		if bytes.EqualFold(key, []byte(name)) {
			return foldedKey
		}
	}
	return unknownKey
}

// eachField calls f with the index in keys of each key of the object b
// and its value, as encoding/json would set the fields named by keys: a
// key of no field is skipped once its value is checked, and a null value
// leaves its field as it is (f is not called) unless its index is
// keepNull. A key encoding/json would match to a field though it is not
// spelled so, or a key twice, makes it return false: encoding/json
// decodes that body.
func eachField(b []byte, keys []string, keepNull int, f func(k int, v []byte) bool) bool {
	var seen uint32
	return eachKey(b, func(key []byte, vs, ve int) bool {
		v := b[vs:ve]
		k := fieldIndex(key, keys)
		if k < 0 {
			return k == unknownKey && json.Valid(v)
		}
		if seen&(1<<k) != 0 {
			return false
		}
		seen |= 1 << k
		if string(v) == "null" && k != keepNull {
			return true // a field left as it is: zero
		}
		return f(k, v)
	})
}

// fastMember decodes a guild member as encoding/json does.
func fastMember(b []byte) (*discordgo.Member, bool) {
	m := new(discordgo.Member)
	ok := eachField(b, memberKeys, -1, func(k int, v []byte) bool {
		var ok bool
		switch k {
		case 0:
			m.GuildID, ok = jsonString(v)
		case 1:
			ok = jsonTime(v, &m.JoinedAt)
		case 2:
			m.Nick, ok = jsonString(v)
		case 3:
			m.Deaf, ok = jsonBool(v)
		case 4:
			m.Mute, ok = jsonBool(v)
		case 5:
			m.Avatar, ok = jsonString(v)
		case 6:
			m.Banner, ok = jsonString(v)
		case 7:
			m.User, ok = fastUser(v)
		case 8:
			m.Roles, ok = jsonStrings(v)
		case 9:
			m.PremiumSince = new(time.Time)
			ok = jsonTime(v, m.PremiumSince)
		case 10:
			var n uint64
			n, ok = jsonUint(v, math.MaxInt)
			m.Flags = discordgo.MemberFlags(n)
		case 11:
			m.Pending, ok = jsonBool(v)
		case 12:
			var n uint64
			n, ok = jsonQuotedUint(v)
			m.Permissions = int64(n)
		case 13:
			m.CommunicationDisabledUntil = new(time.Time)
			ok = jsonTime(v, m.CommunicationDisabledUntil)
		}
		return ok
	})
	return m, ok
}

// fastUser decodes a user as encoding/json does.
func fastUser(b []byte) (*discordgo.User, bool) {
	u := new(discordgo.User)
	ok := eachField(b, userKeys, -1, func(k int, v []byte) bool {
		var ok bool
		var n uint64
		switch k {
		case 0:
			u.ID, ok = jsonString(v)
		case 1:
			u.Email, ok = jsonString(v)
		case 2:
			u.Username, ok = jsonString(v)
		case 3:
			u.Avatar, ok = jsonString(v)
		case 4:
			u.Locale, ok = jsonString(v)
		case 5:
			u.Discriminator, ok = jsonString(v)
		case 6:
			u.GlobalName, ok = jsonString(v)
		case 7:
			u.Token, ok = jsonString(v)
		case 8:
			u.Verified, ok = jsonBool(v)
		case 9:
			u.MFAEnabled, ok = jsonBool(v)
		case 10:
			u.Banner, ok = jsonString(v)
		case 11:
			n, ok = jsonUint(v, math.MaxInt)
			u.AccentColor = int(n)
		case 12:
			u.Bot, ok = jsonBool(v)
		case 13:
			n, ok = jsonUint(v, math.MaxInt)
			u.PublicFlags = discordgo.UserFlags(n)
		case 14:
			n, ok = jsonUint(v, math.MaxInt)
			u.PremiumType = discordgo.UserPremiumType(n)
		case 15:
			u.System, ok = jsonBool(v)
		case 16:
			n, ok = jsonUint(v, math.MaxInt)
			u.Flags = int(n)
		}
		return ok
	})
	return u, ok
}

// fastOwners decodes authorizing_integration_owners as encoding/json
// does: integration types to ids.
func fastOwners(b []byte) (map[discordgo.ApplicationIntegrationType]string, bool) {
	owners := make(map[discordgo.ApplicationIntegrationType]string, 2)
	ok := eachKey(b, func(key []byte, vs, ve int) bool {
		t, ok := jsonUint(key, math.MaxUint)
		if !ok {
			return false
		}
		s, ok := jsonString(b[vs:ve])
		if !ok && string(b[vs:ve]) != "null" {
			return false
		}
		owners[discordgo.ApplicationIntegrationType(t)] = s
		return true
	})
	return owners, ok
}

// fastCommandData decodes a command's data (null: none) as encoding/json
// does.
func fastCommandData(b []byte) (discordgo.ApplicationCommandInteractionData, bool) {
	var d discordgo.ApplicationCommandInteractionData
	if string(b) == "null" {
		return d, true
	}
	ok := eachField(b, commandKeys, -1, func(k int, v []byte) bool {
		var ok bool
		switch k {
		case 0:
			d.ID, ok = jsonString(v)
		case 1:
			d.Name, ok = jsonString(v)
		case 2:
			var n uint64
			n, ok = jsonUint(v, math.MaxUint8)
			d.CommandType = discordgo.ApplicationCommandType(n)
		case 3:
			ok = false // resolved users, members…: encoding/json
		case 4:
			d.Options, ok = fastOptions(v, 0)
		case 5:
			d.TargetID, ok = jsonString(v)
		}
		return ok
	})
	return d, ok
}

// fastOptions decodes a command's options, depth levels down from its
// data (a subcommand's are 1, a group's subcommand's 2).
func fastOptions(b []byte, depth int) ([]*discordgo.ApplicationCommandInteractionDataOption, bool) {
	if depth > 2 {
		return nil, false
	}
	opts := []*discordgo.ApplicationCommandInteractionDataOption{}
	ok := eachElem(b, func(vs, ve int) bool {
		o, ok := fastOption(b[vs:ve], depth)
		opts = append(opts, o)
		return ok
	})
	return opts, ok
}

func fastOption(b []byte, depth int) (*discordgo.ApplicationCommandInteractionDataOption, bool) {
	if string(b) == "null" {
		return nil, true
	}
	o := new(discordgo.ApplicationCommandInteractionDataOption)
	ok := eachField(b, optionKeys, -1, func(k int, v []byte) bool {
		var ok bool
		switch k {
		case 0:
			o.Name, ok = jsonString(v)
		case 1:
			var n uint64
			n, ok = jsonUint(v, math.MaxUint8)
			o.Type = discordgo.ApplicationCommandOptionType(n)
		case 2:
			o.Value, ok = jsonScalar(v)
		case 3:
			o.Options, ok = fastOptions(v, depth+1)
		case 4:
			o.Focused, ok = jsonBool(v)
		}
		return ok
	})
	return o, ok
}

// fastComponentData decodes a click's data (null: none) as encoding/json
// does.
func fastComponentData(b []byte) (discordgo.MessageComponentInteractionData, bool) {
	var d discordgo.MessageComponentInteractionData
	if string(b) == "null" {
		return d, true
	}
	ok := eachField(b, componentKeys, -1, func(k int, v []byte) bool {
		var ok bool
		switch k {
		case 0:
			d.CustomID, ok = jsonString(v)
		case 1:
			var n uint64
			n, ok = jsonUint(v, math.MaxUint)
			d.ComponentType = discordgo.ComponentType(n)
		case 2:
			ok = false // resolved: encoding/json
		case 3:
			d.Values, ok = jsonStrings(v)
		}
		return ok
	})
	return d, ok
}

// jsonString returns the JSON string v as encoding/json decodes it, if
// it has no escape: its bytes, which must be UTF-8 without control
// characters.
func jsonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	s := v[1 : len(v)-1]
	ascii := true
	for _, c := range s {
		switch {
		case c == '\\' || c == '"' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(s) {
		return "", false // encoding/json would replace what is not UTF-8
	}
	return string(s), true
}

// jsonStrings decodes an array of strings (none null) as encoding/json
// does: [] is an empty slice, not nil.
func jsonStrings(v []byte) ([]string, bool) {
	ss := []string{}
	ok := eachElem(v, func(vs, ve int) bool {
		s, ok := jsonString(v[vs:ve])
		ss = append(ss, s)
		return ok
	})
	return ss, ok
}

// jsonUint returns the JSON number v if it is a plain decimal integer
// from 0 to max.
func jsonUint(v []byte, max uint64) (uint64, bool) {
	if len(v) == 0 || len(v) > 19 || v[0] == '0' && len(v) > 1 {
		return 0, false
	}
	var n uint64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, n <= max
}

// jsonQuotedUint returns a number sent as a string (a field tagged
// ",string", such as permissions), if it is a plain decimal integer from
// 0 to math.MaxInt64.
func jsonQuotedUint(v []byte) (uint64, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return 0, false
	}
	return jsonUint(v[1:len(v)-1], math.MaxInt64)
}

func jsonBool(v []byte) (bool, bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// jsonTime decodes a time as encoding/json does: by time.Time's own
// UnmarshalJSON.
func jsonTime(v []byte, t *time.Time) bool {
	return len(v) > 0 && v[0] == '"' && t.UnmarshalJSON(v) == nil
}

// jsonScalar decodes an option's value into an interface{} as
// encoding/json does: a string, a number as a float64, a bool. An
// object, an array, a string with escapes or a number that is not plain
// are left to encoding/json.
func jsonScalar(v []byte) (any, bool) {
	switch {
	case len(v) == 0:
		return nil, false
	case v[0] == '"':
		return jsonString(v)
	case v[0] == 't' || v[0] == 'f':
		return jsonBool(v)
	case v[0] == '-' || v[0] >= '0' && v[0] <= '9':
		if !plainNumber(v) {
			return nil, false
		}
		f, err := strconv.ParseFloat(string(v), 64)
		return f, err == nil
	}
	return nil, false
}

// plainNumber says whether v is a JSON number without exponent: -?int(.frac)?.
func plainNumber(v []byte) bool {
	if len(v) > 0 && v[0] == '-' {
		v = v[1:]
	}
	intEnd := 0
	for intEnd < len(v) && v[intEnd] >= '0' && v[intEnd] <= '9' {
		intEnd++
	}
	if intEnd == 0 || v[0] == '0' && intEnd > 1 {
		return false
	}
	if intEnd == len(v) {
		return true
	}
	if v[intEnd] != '.' || intEnd+1 == len(v) {
		return false
	}
	for _, c := range v[intEnd+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// emptyArray says whether v is [] (spaces allowed).
func emptyArray(v []byte) bool {
	return len(v) >= 2 && v[0] == '[' && v[len(v)-1] == ']' && skipSpace(v, 1) == len(v)-1
}

// eachElem calls f with where each element of the JSON array b starts and
// ends, while f returns true. It checks the nesting only (each element's
// own decoder checks the element); it returns false if b is not an array
// so made, or f returned false.
func eachElem(b []byte, f func(start, end int) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		vs := i
		ve := skipValue(b, vs)
		if ve < 0 || !f(vs, ve) {
			return false
		}
		i = skipSpace(b, ve)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == ']':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}
