"""The private car (motor) insurance wording, versions 2024 and 2025.

What changes at the 2025 renewal (form MT-PW-2025/02), so that questions can turn on it:
amounts (`MOTOR.values`, e.g. compulsory excess £250 -> £300, Europe 90 -> 60 days, new car
replacement 12 -> 18 months, a stolen car written off after 28 -> 21 days); the wording of seven
definitions (accessories, vehicle, keys, market value, social use, total loss, young driver) and
seven claims clauses (reporting, scene, theft, repairs, total loss, windscreen, uninsured driver);
two clauses new in 2025, appended at the end of their part (2.16 track day, 6.10 dash camera
footage, besides 5.15 delivery driving), and one clause dropped in 2025 (3.13 driving other cars,
moved to the end of part 3 so the other numbers are the same in both versions).
"""

from __future__ import annotations

from ragsweep.data.samplegen import shared
from ragsweep.data.samplegen.spec import Ask, ClauseDef, Endorsement, PartDef, ProductDef

DEFINITIONS = PartDef(
    "2",
    "Definitions",
    "definitions",
    (
        ClauseDef(
            "def.accessories",
            "Accessories",
            "accessories",
            (
                "Accessories means parts or products designed to be fitted to the vehicle, such"
                " as roof bars, tow bars and alloy wheels, including audio, navigation and"
                " entertainment equipment permanently fitted to it.",
                {
                    "2024": "Accessories do not include mobile phones, portable satellite"
                    " navigation units or dash cameras that can be removed without tools.",
                    "2025": "Accessories do not include mobile phones or portable satellite"
                    " navigation units; a dash camera counts as an accessory only if it is wired"
                    " into the vehicle's electrics.",
                },
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Do <roof bars|alloy wheels|tow bars> count as <part of the"
                        " car|=accessories>?",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    ("Is a <plug-in|stick-on> sat nav <part of the car|one of the accessories>?",),
                    supports=("lim.audio",),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    (
                        "Is my <dash cam|dashcam> <counted as|treated as> an"
                        " <accessory|=accessories> of the car?",
                        "If my <dash cam|dashcam> gets <nicked|stolen> with the car is it part of"
                        " the car or not?",
                    ),
                    supports=("cov.damage",),
                    versions=("2024",),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    (
                        "Is my <dash cam|dashcam> <counted as|treated as> an"
                        " <accessory|=accessories> now? <Last year's|The old> wording said no",
                        "Has the rule on <dash cams|dashcams> changed <this year|since I"
                        " renewed>? Mine is <hard-wired|wired in>",
                    ),
                    supports=("cov.damage",),
                    versions=("2025",),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "def.repairer",
            "Approved repairer",
            "an approved repairer",
            (
                "Approved repairer means a repairer in our network that we have appointed to"
                " repair vehicles on our behalf.",
                "Repairs carried out by an approved repairer are guaranteed for as long as you own"
                " the vehicle.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "What's an <=approved repairer|approved garage> and <why does it"
                        " matter|do I have to use one>?",
                    ),
                    supports=("clm.repairs", "lim.repairer_excess"),
                ),
                Ask(
                    "definitions",
                    (
                        "whats the point of using <your garages|one of your garages> instead of my"
                        " own?",
                    ),
                    supports=("clm.repairs", "lim.repairer_excess"),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    (
                        "How long is the <guarantee|warranty> on repairs <from|done by> your"
                        " <garages|approved repairers>?",
                    ),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "def.vehicle",
            "Vehicle",
            "the vehicle",
            (
                "Vehicle means the private motor car described in your schedule and on your"
                " certificate of motor insurance, together with its accessories and spare parts.",
                {
                    "2024": "It includes a replacement vehicle we have agreed to insure, but not a"
                    " courtesy car or a hire car.",
                    "2025": "It includes a replacement vehicle we have agreed to insure and a"
                    " courtesy car we provide under clause {ref[cov.courtesy]}, but not a hire car"
                    " you arrange yourself.",
                },
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "<Does|Would> the <courtesy car|hire car> count as <my car|=the vehicle>"
                        " under the policy?",
                    ),
                    supports=("cov.courtesy",),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    ("What <vehicle|car> exactly does my <car insurance|motor policy> cover?",),
                    supports=("cov.courtesy",),
                ),
                Ask(
                    "definitions",
                    (
                        "Are my <spare wheel|roof box> and spare parts part of <the insured"
                        " car|=the vehicle>?",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "Is the <courtesy car|loan car> <now|this year> counted as <my car|=the"
                        " vehicle>? <I'm sure|I thought> it wasn't before",
                    ),
                    supports=("cov.courtesy",),
                    versions=("2025",),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "def.certificate",
            "Certificate of motor insurance",
            "the certificate of motor insurance",
            (
                "Certificate of motor insurance means the document that proves you have the"
                " insurance required by law.",
                "It shows the vehicle, who may drive it and the purposes for which it may be"
                " used, and it forms part of your contract.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "What's the <certificate|insurance certificate> for, and is it the same as"
                        " my schedule?",
                    ),
                ),
                Ask(
                    "definitions",
                    ("Where does it say who's <allowed|insured> to drive my car?",),
                    supports=("def.named_driver",),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "def.charging",
            "Charging equipment",
            "charging equipment",
            (
                "Charging equipment means the cables, portable chargers and wall boxes used to"
                " charge an electric or plug-in hybrid vehicle.",
                "A wall box is included only while it is fixed at your home address.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does my <home charger|wall box> <count as|come under> <charging"
                        " equipment|=charging equipment>?",
                    ),
                    supports=("cov.charging", "lim.charging"),
                ),
                Ask(
                    "definitions",
                    (
                        "Is a wall box I <haven't fitted yet|keep in the garage unfitted> covered"
                        " as a charger?",
                    ),
                    supports=("cov.charging", "lim.charging"),
                    facts=(1,),
                ),
            ),
        ),
        shared.DEF_EXCESS,
        ClauseDef(
            "def.keys",
            "Keys",
            "the keys",
            (
                {
                    "2024": "Keys means the keys, key cards and remote fobs supplied with the"
                    " vehicle or replaced since.",
                    "2025": "Keys means the keys, key cards, remote fobs and keyless entry devices"
                    " supplied with the vehicle or replaced since, including any phone or app that"
                    " has been set up to unlock or start the vehicle.",
                },
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    ("Does <the app|my phone app> that unlocks the car count as <a key|=keys>?",),
                    supports=("cov.keys",),
                    versions=("2024",),
                ),
                Ask(
                    "definitions",
                    (
                        "Does <the app|my phone app> that unlocks the car count as <a key|=keys>"
                        " now?",
                        "My phone is my car key, <has that changed|is it counted as a key> on the"
                        " new wording?",
                    ),
                    supports=("cov.keys", "exc.keys"),
                    versions=("2025",),
                    hinge="wording",
                ),
            ),
        ),
        ClauseDef(
            "def.market_value",
            "Market value",
            "market value",
            (
                {
                    "2024": "Market value means the cost of replacing the vehicle with one of the"
                    " same make, model, age, mileage and condition immediately before the loss,"
                    " based on recognised trade guides.",
                    "2025": "Market value means the cost of replacing the vehicle with one of the"
                    " same make, model, age, mileage and condition immediately before the loss,"
                    " based on recognised trade guides and on the advertised prices of similar"
                    " vehicles at the time of the loss.",
                },
                "It is not the price you paid for the vehicle or the amount you owe on any"
                " finance agreement.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "How do you <work out|decide> what my car is worth <if it's written"
                        " off|after a write-off>?",
                    ),
                    supports=("clm.total_loss", "lim.vehicle"),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    ("Is <=market value|the value of my car> what I paid for it?",),
                    supports=("clm.total_loss", "lim.vehicle"),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    (
                        "i still owe more on finance than the car is worth, what do you <go"
                        " by|pay>?",
                    ),
                    supports=("clm.total_loss", "lim.vehicle"),
                ),
                Ask(
                    "definitions",
                    (
                        "Have you changed how you <value|price up> a written-off car <this"
                        " year|since my renewal>?",
                        "Do you look at <Autotrader|adverts for similar cars> <now|these days>"
                        " when you value a write-off?",
                    ),
                    supports=("lim.vehicle",),
                    versions=("2025",),
                    hinge="wording",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "def.named_driver",
            "Named driver",
            "a named driver",
            (
                "Named driver means a person shown on your certificate of motor insurance as"
                " entitled to drive the vehicle.",
                "A named driver is covered only while driving the vehicle with your permission"
                " and within the uses allowed by the certificate.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "What's the difference between <me|the policyholder> and a <named"
                        " driver|=named driver>?",
                    ),
                ),
                Ask(
                    "definitions",
                    (
                        "Can my <wife|son> drive the car if they're a named driver?",
                        "my <partner|daughter> is on the policy as a named driver, can they take"
                        " the car <without asking|whenever they want>?",
                    ),
                    supports=("exc.drivers", "def.certificate"),
                    facts=(1,),
                ),
            ),
        ),
        shared.DEF_PERIOD,
        ClauseDef(
            "def.belongings",
            "Personal belongings",
            "personal belongings",
            (
                "Personal belongings means clothing and other personal items in or on the"
                " vehicle, belonging to you or your passengers.",
                "Personal belongings do not include money, tickets, documents, mobile phones,"
                " tools, goods carried for business, or items covered under another policy.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "<Do my work tools|Does my phone> count as personal <belongings|stuff> in"
                        " the car?",
                        "What <counts as|do you mean by> <=personal belongings|my stuff> in the"
                        " car?",
                    ),
                    supports=("cov.belongings", "lim.belongings"),
                ),
            ),
        ),
        ClauseDef(
            "def.use",
            "Social, domestic and pleasure use",
            "social, domestic and pleasure use",
            (
                "Social, domestic and pleasure use means driving for private purposes, such as"
                " shopping, visiting friends and going on holiday.",
                {
                    "2024": "Commuting to a single permanent place of work is covered only if your"
                    " certificate says so, and business use only if it is shown on the"
                    " certificate.",
                    "2025": "It includes commuting to a single permanent place of work; business"
                    " use is covered only if it is shown on your certificate.",
                },
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does <driving to work|my commute> <count as|fall under> social and"
                        " <domestic|pleasure> use?",
                    ),
                    supports=("exc.use", "def.certificate"),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    (
                        "What does <social, domestic and pleasure|SD&P> mean on my <car"
                        " insurance|certificate>?",
                    ),
                    supports=("exc.use", "def.certificate"),
                ),
                Ask(
                    "definitions",
                    (
                        "Is commuting <included now|part of my cover now>? <Last year|Before> I had"
                        " to <have it on|add it to> my certificate",
                        "Did the <new|renewed> policy change <the rules on|anything about> driving"
                        " to work?",
                    ),
                    supports=("exc.use",),
                    versions=("2025",),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "def.territorial",
            "Territorial limits",
            "the territorial limits",
            (
                "Territorial limits means Great Britain, Northern Ireland, the Isle of Man and the"
                " Channel Islands, and travel between them by sea or rail.",
                "Driving abroad is covered only as set out in clause {ref[cov.europe]}.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does <the UK|my cover area> include <the Isle of Man|Jersey|Northern"
                        " Ireland>?",
                        "am i covered on the ferry to <Guernsey|the Isle of Man|Belfast>?",
                    ),
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "def.total_loss",
            "Total loss",
            "a total loss",
            (
                {
                    "2024": "Total loss means the vehicle has been stolen and not recovered within"
                    " {v[recovery_days]} days, or it is damaged and we decide that it is not"
                    " economical to repair.",
                    "2025": "Total loss means the vehicle has been stolen and not recovered within"
                    " {v[recovery_days]} days of the theft being reported to the police, or it is"
                    " damaged and the cost of repair would be more than 60% of its market value"
                    " (clause {ref[def.market_value]}).",
                },
                "This is sometimes called a write-off.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "When do you <decide|say> a car is <written off|a write-off>?",
                        "How <bad|expensive> does the damage have to be before my car is"
                        " <written off|totalled>?",
                    ),
                    supports=("clm.total_loss", "clm.theft"),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "How long before a stolen car <counts as|is treated as> a <write-off|=total"
                        " loss>?",
                        "How long does a stolen car have to be missing before <it's written"
                        " off|you pay out>?",
                    ),
                    supports=("clm.total_loss",),
                    also=("clm.theft",),
                    facts=(0,),
                ),
                Ask(
                    "definitions",
                    (
                        "Is it still {other[recovery_days]} days before <a stolen car|my stolen"
                        " car> is written off?",
                        "<I thought|Someone told me> you wait {other[recovery_days]} days for a"
                        " stolen car to turn up, is that still right?",
                    ),
                    supports=("clm.total_loss",),
                    also=("clm.theft",),
                    versions=("2025",),
                    hinge="recovery_days",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "def.young_driver",
            "Young or inexperienced driver",
            "a young or inexperienced driver",
            (
                {
                    "2024": "Young or inexperienced driver means a driver under 25 years old, or a"
                    " driver who has held a full driving licence for less than two years.",
                    "2025": "Young or inexperienced driver means a driver under 25 years old, or a"
                    " driver who has held a full UK driving licence for less than two years; a"
                    " licence issued abroad counts only from the date it was exchanged for a UK"
                    " licence.",
                },
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    ("Who <counts as|is classed as> a young or <new|inexperienced> driver?",),
                    supports=("lim.young_excess",),
                ),
                Ask(
                    "definitions",
                    (
                        "I'm 27 but only passed my test last year, <am I|do I count as> an"
                        " inexperienced driver?",
                    ),
                    also=("lim.young_excess",),
                ),
                Ask(
                    "definitions",
                    (
                        "I drove for years on my <Polish|Australian|Indian> licence and swapped it"
                        " for a UK one last year, am I <a new driver|inexperienced> <now|on the"
                        " new policy>?",
                    ),
                    supports=("lim.young_excess",),
                    versions=("2025",),
                    hinge="wording",
                ),
            ),
        ),
        ClauseDef(
            "def.track_day",
            "Track day",
            "a track day",
            (
                "Track day means any event at a race circuit, airfield or proving ground where"
                " vehicles are driven on a closed course, whether or not the event is timed and"
                " whether or not it is open to the public.",
                "It includes high-performance driving courses and experience days held on a"
                " closed course.",
            ),
            fill=1,
            versions=("2025",),
            gloss="what counts as a track day, timed or not",
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does a <driving experience day|performance driving course> on a"
                        " <circuit|closed track> count as a <track day|=track day>?",
                    ),
                    supports=("exc.use",),
                    facts=(1,),
                ),
                Ask(
                    "definitions",
                    (
                        "What do you <mean by|count as> a <track day|trackday> <in the new"
                        " wording|now>?",
                    ),
                    supports=("exc.use",),
                ),
            ),
        ),
    ),
)

COVER = PartDef(
    "3",
    "What is covered",
    "cover",
    (
        ClauseDef(
            "cov.damage",
            "Damage to your vehicle",
            "the vehicle",
            (
                "If your schedule shows comprehensive cover, we will pay for loss of or damage to"
                " the vehicle and its accessories caused by an accident, malicious damage or"
                " vandalism, storm, flood or falling objects.",
                "We will repair the vehicle, replace it or pay you the cost of the loss or"
                " damage, up to the limit in clause {ref[lim.vehicle]}.",
                "If the vehicle cannot be driven, we will pay the reasonable cost of moving it to"
                " the nearest suitable repairer and delivering it to your home after repair.",
                "Each claim under this clause is subject to the excesses in section 4, which are"
                " combined as set out in clause {ref[lim.general]}.",
            ),
            fill=7,
            lay="the damage to your car section",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "<A tree fell on|A branch came down on> my car in <the storm|high winds>,"
                        " am I covered?",
                        "My car got <flooded|caught in a flash flood> <on the road|outside the"
                        " house>, <will you pay|can I claim>?",
                    ),
                    supports=("lim.compulsory_excess",),
                ),
                Ask(
                    "exclusions",
                    (
                        "<Someone vandalised|Kids smashed up> my car <overnight|in the street>,"
                        " does my <policy|insurance> pay?",
                    ),
                    supports=("lim.compulsory_excess", "clm.theft"),
                ),
            ),
        ),
        ClauseDef(
            "cov.fire_theft",
            "Fire and theft",
            "fire and theft",
            (
                "We will pay for loss of or damage to the vehicle caused by fire, lightning,"
                " explosion, theft or attempted theft.",
                "If the vehicle is stolen and not recovered, we will settle the claim as a total"
                " loss; see clause {ref[clm.total_loss]}.",
                "The theft excess in clause {ref[lim.theft_excess]} applies.",
                "Theft cover does not apply where exclusion {ref[exc.keys]} applies, for example"
                " if the keys were left in the vehicle.",
            ),
            fill=7,
            lay="the fire and theft section",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "Is my car covered if it's stolen <and never found|and never turns up>?",
                        "My car <caught fire|went up in flames> <on the drive|in a car park>, is"
                        " that covered?",
                    ),
                    supports=("def.total_loss", "clm.theft"),
                ),
                Ask(
                    "exclusions",
                    (
                        "<Thieves|Someone> <stole|took> my <keyless|push-start> car <off the"
                        " drive|from outside the house> using a <relay|signal booster>, is that"
                        " covered?",
                    ),
                    supports=("exc.keys", "def.keys"),
                    versions=("2024",),
                ),
            ),
        ),
        ClauseDef(
            "cov.windscreen",
            "Windscreen and windows",
            "the windscreen and windows",
            (
                "We will pay to repair or replace broken glass in the windscreen, windows or"
                " sunroof of the vehicle, and to repair any scratching to the bodywork caused by"
                " the broken glass.",
                "A claim for glass only does not affect your no claim discount.",
                "The windscreen excesses in clause {ref[lim.windscreen]} apply, and glass claims"
                " are made as set out in clause {ref[clm.windscreen]}.",
            ),
            fill=6,
            lay="the windscreen cover",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "Is a <cracked sunroof|smashed side window> covered <the same as|like> a"
                        " windscreen?",
                    ),
                ),
                Ask(
                    "exclusions",
                    ("Will a <windscreen claim|new windscreen> <affect|mess up> my no claims?",),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "cov.belongings",
            "Personal belongings",
            "personal belongings",
            (
                "We will pay for loss of or damage to personal belongings, as defined in clause"
                " {ref[def.belongings]}, in or on the vehicle caused by an accident, fire or"
                " theft, up to the limit in clause {ref[lim.belongings]}.",
                "Theft is covered only if the vehicle was locked and the belongings were out of"
                " sight.",
            ),
            fill=6,
            lay="the belongings cover",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "My <gym bag|shopping> was <nicked|stolen> off the back seat <of my"
                        " unlocked car|when I left the car open>, can I claim?",
                        "Someone took my <coat|jacket> from the car, it was <on the seat|in plain"
                        " view>, <am I covered|will you pay>?",
                    ),
                    supports=("cond.care",),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "cov.courtesy",
            "Courtesy car",
            "a courtesy car",
            (
                "If the vehicle is being repaired by an approved repairer (see clause"
                " {ref[def.repairer]}) after a claim, we will provide a small hatchback courtesy"
                " car for the duration of the repairs, subject to availability.",
                {
                    "2024": "A courtesy car is not provided if the vehicle is a total loss, as"
                    " defined in clause {ref[def.total_loss]}, or has been stolen and not"
                    " recovered.",
                    "2025": "If the vehicle is a total loss, as defined in clause"
                    " {ref[def.total_loss]}, or has been stolen and not recovered, we will provide"
                    " a courtesy car for up to 14 days.",
                },
                "The courtesy car is covered on the same terms as your policy, and you must pay"
                " for its fuel, tolls and any parking or congestion charges.",
            ),
            fill=6,
            lay="the courtesy car section",
            asks=(
                Ask(
                    "limits",
                    (
                        "Do I get a <courtesy car|replacement car> if my car is <written off|a"
                        " write-off>, and for how long?",
                        "<My car was stolen|They nicked my car>, do I get a <loan car|courtesy"
                        " car> while you sort it?",
                    ),
                    supports=("exc.value",),
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    (
                        "How long can I keep the <courtesy car|hire car> <while mine's being"
                        " fixed|during repairs>?",
                        "Do I get a courtesy car if I <use my own garage|don't use your repairer>?",
                    ),
                    supports=("exc.value", "clm.repairs"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Do I get a courtesy car <now|this year> if my car's <written off|stolen>?"
                        " <Last time|Before> you said no",
                        "Has the <courtesy car|loan car> <cover|rule> changed for"
                        " <write-offs|stolen cars> since I renewed?",
                    ),
                    supports=("exc.value",),
                    versions=("2025",),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "cov.audio",
            "Audio, navigation and entertainment equipment",
            "audio and navigation equipment",
            (
                "We will pay for loss of or damage to audio, navigation, telephone and"
                " entertainment equipment permanently fitted to the vehicle.",
                "Equipment fitted by the manufacturer as original equipment is covered in full;"
                " other equipment is covered up to the limit in clause {ref[lim.audio]}.",
            ),
            fill=6,
            asks=(
                Ask(
                    "limits",
                    (
                        "Is the <factory|built-in> <stereo|touchscreen> covered <in full|with no"
                        " limit> if it's <stolen|ripped out>?",
                    ),
                    supports=("def.accessories",),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "cov.keys",
            "Replacement locks and keys",
            "locks and keys",
            (
                "If the keys to the vehicle are lost or stolen, we will pay to replace the keys,"
                " the door and boot locks, the ignition lock and the steering lock, and to"
                " reprogramme the immobiliser and keyless entry system, up to the limit in clause"
                " {ref[lim.keys]}.",
                "You must report stolen keys to the police as set out in clause {ref[clm.theft]};"
                " we will only pay for new locks if the identity or garaging address of the"
                " vehicle is known to a person who may have the keys.",
            ),
            fill=6,
            lay="the lost keys cover",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "I <dropped|lost> my <car key|key fob> <in the sea|somewhere in town>,"
                        " nobody knows which car it's for. Do you pay for new locks?",
                    ),
                    supports=("def.keys",),
                    facts=(1,),
                ),
                Ask(
                    "exclusions",
                    ("Do you cover <new keys|replacement keys> if mine are <stolen|lost>?",),
                    supports=("def.keys",),
                ),
            ),
        ),
        ClauseDef(
            "cov.charging",
            "Electric vehicle charging equipment and battery",
            "the charging equipment and battery",
            (
                "We will pay for loss of or damage to charging equipment, as defined in clause"
                " {ref[def.charging]}, at your home or in the vehicle, caused by an accident,"
                " fire, theft or malicious damage.",
                "We will also pay for loss of or damage to the vehicle's battery, whether you own"
                " it or lease it.",
                "Damage caused by charging the vehicle with equipment that does not meet the"
                " manufacturer's specification is not covered.",
            ),
            fill=6,
            lay="the EV charging cover",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "My car got damaged <charging|while charging> <with a cheap cable|on a"
                        " knock-off charger>, is that covered?",
                    ),
                    supports=("exc.wear",),
                    facts=(2,),
                ),
            ),
        ),
        ClauseDef(
            "cov.child_seats",
            "Child car seats",
            "child car seats",
            (
                "If the vehicle is involved in an accident, we will pay to replace any child car"
                " seat fitted to it, even if there is no visible damage, up to the limit in"
                " clause {ref[lim.child_seats]}.",
                "No excess applies, and a claim for child car seats alone does not affect your no"
                " claim discount.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "Do I pay an excess <to replace|for> the <kids' car seats|child seats>"
                        " after a crash?",
                    ),
                    also=("lim.child_seats",),
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    (
                        "The <baby seat|car seat> looks fine after <the bump|a small crash>, will"
                        " you still <replace|pay for> it?",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "<Will|Does> claiming for <just the baby seat|only the child seats> affect"
                        " my no claims?",
                    ),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "cov.liability",
            "Liability to other people",
            "your liability to other people",
            (
                "We will cover you for your legal liability for the death of or injury to any"
                " person, and for damage to their property, arising from an accident involving"
                " the vehicle or a trailer attached to it.",
                "We will also cover any named driver, and any passenger for their liability"
                " arising from getting into or out of the vehicle.",
                "The limits in clause {ref[lim.liability]} apply.",
                "Where exclusion {ref[exc.alcohol]} or {ref[exc.drivers]} applies, we will still"
                " meet our obligations under the Road Traffic Acts, but we may recover what we pay"
                " from the driver.",
            ),
            fill=7,
            lay="the third party section",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "My passenger <opened the door into|knocked> a cyclist <getting out|with"
                        " the door>, are they covered?",
                    ),
                    facts=(1,),
                ),
                Ask(
                    "exclusions",
                    (
                        "Is my <caravan|trailer> covered if it causes <a crash|an accident> while"
                        " I'm towing?",
                    ),
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "cov.europe",
            "Driving in Europe",
            "driving in Europe",
            (
                "We will provide the same cover as in the United Kingdom while the vehicle is in"
                " any country of the European Union, Andorra, Iceland, Liechtenstein, Norway,"
                " Serbia or Switzerland, for up to {v[europe_days]} days in any period of"
                " insurance.",
                "Outside these periods or countries, and anywhere else outside the territorial"
                " limits in clause {ref[def.territorial]}, we will provide the minimum cover"
                " needed to meet the law of the country concerned.",
                "You must carry your certificate of motor insurance when you drive abroad.",
            ),
            fill=6,
            lay="the European cover clause",
            asks=(
                Ask(
                    "limits",
                    (
                        "How long can I <take the car|drive> <in France|in Europe> and still be"
                        " fully covered?",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "We're <driving to Spain|doing a road trip round Europe> for <ten|eight>"
                        " weeks, are we <fully covered|still comprehensive>?",
                        "is my car covered <in Turkey|in Morocco> if we take the ferry?",
                    ),
                    facts=(0, 1),
                ),
                Ask(
                    "limits",
                    (
                        "<Is it still|Do I still get> {other[europe_days]} days of full cover in"
                        " Europe?",
                        "I thought I had {other[europe_days]} days <abroad|in Europe> on my"
                        " policy, has that changed?",
                    ),
                    versions=("2025",),
                    hinge="europe_days",
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "I heard the <new policy|next wording> cuts Europe to"
                        " {other[europe_days]} days, does that <hit me|apply to me> yet?",
                    ),
                    versions=("2024",),
                    hinge="europe_days",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "cov.personal_accident",
            "Personal accident benefit",
            "personal accident benefit",
            (
                "If you or your partner are accidentally injured while travelling in or getting"
                " into or out of the vehicle, and the injury results within 3 months in death,"
                " loss of a limb or loss of sight, we will pay the benefit in clause"
                " {ref[lim.personal_accident]}.",
                "We will not pay this benefit to anyone over 75 years old, or where the driver was"
                " under the influence of alcohol or drugs as described in clause"
                " {ref[exc.alcohol]}.",
            ),
            fill=5,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "Does the <injury cover|personal accident cover> pay out for my <dad,"
                        " who's 80|78 year old mum>?",
                    ),
                    facts=(1,),
                ),
                Ask(
                    "exclusions",
                    (
                        "Would the personal accident <payout|benefit> cover my"
                        " <wife|husband|partner> if they were hurt getting out of the car?",
                    ),
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "cov.other_cars",
            "Driving other cars",
            "driving other cars",
            (
                "If your certificate of motor insurance allows it, you (but not a named driver)"
                " are covered for third party liability only while driving another private car"
                " that does not belong to you and is not hired to you.",
                "The other car must have its own valid insurance, and there is no cover for"
                " damage to the car you are driving.",
                "This cover does not apply at all where endorsement END-MT-09 is shown in your"
                " schedule.",
            ),
            fill=6,
            # withdrawn at the 2025 renewal (exc.drivers says so); last in part 3, so the other
            # cover clauses keep their numbers in both versions
            versions=("2024",),
            lay="the driving other cars section",
            asks=(
                Ask(
                    "exclusions",
                    ("Can I drive my <friend's|mate's|dad's> car on my <own|car> insurance?",),
                    supports=("def.certificate", "exc.drivers"),
                ),
                Ask(
                    "exclusions",
                    (
                        "If I <borrow|drive> someone else's car and <crash|damage it>, is <their"
                        " car|the damage> covered?",
                    ),
                    facts=(1,),
                ),
            ),
        ),
    ),
)

LIMITS = PartDef(
    "4",
    "Limits and excesses",
    "limits",
    (
        ClauseDef(
            "lim.general",
            "How limits and excesses apply",
            "the vehicle",
            (
                "The excesses in this section are added together where more than one applies,"
                " for example the compulsory excess, the young driver excess and any voluntary"
                " excess.",
                "An excess applies to each claim under clauses {ref[cov.damage]} and"
                " {ref[cov.fire_theft]}, whoever is driving.",
                "No excess applies to claims under clause {ref[cov.liability]}.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "If my <20 year old|teenager> crashes, do I pay <the young driver excess"
                        " and the normal one|both excesses>?",
                    ),
                    supports=("def.excess", "lim.compulsory_excess", "lim.voluntary_excess"),
                    also=("lim.young_excess",),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Do the <excesses|different excesses> <add up|stack> <if more than one"
                        " applies|on one claim>?",
                    ),
                    supports=(
                        "def.excess",
                        "lim.compulsory_excess",
                        "lim.voluntary_excess",
                        "lim.young_excess",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Is there an excess <if someone claims against me|on a third party claim>?",
                        "Do I pay <any excess|an excess> if the other driver claims <off me|against"
                        " me> for their car?",
                    ),
                    supports=("cov.liability",),
                    facts=(2,),
                ),
            ),
        ),
        ClauseDef(
            "lim.vehicle",
            "The most we will pay for the vehicle",
            "the vehicle",
            (
                "The most we will pay for loss of or damage to the vehicle is its market value,"
                " as defined in clause {ref[def.market_value]}, at the time of the loss.",
                "If the vehicle is less than {v[new_car_months]} months old and you are its first"
                " registered keeper, we will replace it with a new vehicle of the same make and"
                " model if it is a total loss as defined in clause {ref[def.total_loss]}.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "My car is <brand new|only a year old> and got written off, do I get a new"
                        " one or <just its value|the market value>?",
                        "What's the most you'll pay if my <car|vehicle> is <a write-off|totalled>?",
                    ),
                    supports=("clm.total_loss", "cond.instalments"),
                ),
                Ask(
                    "limits",
                    (
                        "Is new car replacement still <only|just> for cars under"
                        " {other[new_car_months]} months old?",
                        "My car is <15|16|17> months old and it's been written off, do I get a"
                        " brand new one <now|since the renewal>?",
                    ),
                    supports=("clm.total_loss",),
                    versions=("2025",),
                    hinge="new_car_months",
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    (
                        "I read new car replacement goes up to {other[new_car_months]} months at"
                        " renewal, does that help me <now|before then>?",
                    ),
                    supports=("clm.total_loss",),
                    versions=("2024",),
                    hinge="new_car_months",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "lim.compulsory_excess",
            "Compulsory excess",
            "the compulsory excess",
            (
                "A compulsory excess of {v[compulsory_excess]} applies to each claim for loss of"
                " or damage to the vehicle, or the higher amount shown in your schedule.",
                "The compulsory excess does not apply to windscreen claims, which have their own"
                " excess in clause {ref[lim.windscreen]}.",
                "Any voluntary or young driver excess is added to it, as clause {ref[lim.general]}"
                " explains.",
            ),
            fill=5,
            lay="the compulsory excess",
            asks=(
                Ask(
                    "limits",
                    (
                        "What's the <deductible|excess> on <my car insurance|a car claim>?",
                        "How much <is the compulsory excess|do I pay myself> if I <crash|have an"
                        " accident>?",
                    ),
                    supports=("def.excess", "lim.voluntary_excess", "lim.young_excess"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "<I hit a wall|I reversed into a bollard> and dented the car, <how"
                        " much|what> will I pay <towards the repair|myself>?",
                    ),
                    supports=("cov.damage", "lim.voluntary_excess"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Is my excess still {other[compulsory_excess]} <after renewal|now I've"
                        " renewed>?",
                        "Did the <compulsory excess|basic excess> go up <this year|at"
                        " renewal>? It <was|used to be> {other[compulsory_excess]}",
                    ),
                    supports=("lim.voluntary_excess",),
                    versions=("2025",),
                    hinge="compulsory_excess",
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "<I've heard|Someone said> the excess is going up to"
                        " {other[compulsory_excess]}, is that on my policy <already|yet>?",
                    ),
                    supports=("lim.voluntary_excess",),
                    versions=("2024",),
                    hinge="compulsory_excess",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.voluntary_excess",
            "Voluntary excess",
            "the voluntary excess",
            (
                "If you chose a voluntary excess when you took out this policy, it is shown in"
                " your schedule and is added to the compulsory excess in clause"
                " {ref[lim.compulsory_excess]}.",
                "You may choose a voluntary excess of £100, £250 or £500 in return for a lower"
                " premium; you can change it only at renewal.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "Can I <raise|increase> my <voluntary excess|deductible> <to lower|to get a"
                        " cheaper> premium?",
                        "Can I <drop|change> my voluntary excess <halfway through the year|right"
                        " now>?",
                    ),
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    (
                        "Do I pay the voluntary excess <on top of|as well as> the"
                        " <compulsory|normal> one?",
                    ),
                    also=("lim.general", "lim.compulsory_excess"),
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.young_excess",
            "Young and inexperienced driver excess",
            "the young driver excess",
            (
                "An additional excess applies when the vehicle is being driven by a young or"
                " inexperienced driver, as defined in clause {ref[def.young_driver]}.",
                "The additional excess is {v[under21_excess]} for a driver aged under 21, and"
                " {v[young_excess]} for a driver aged 21 to 24 or a driver who has held a full"
                " licence for less than two years.",
                "This excess is added to the compulsory and any voluntary excess.",
            ),
            fill=5,
            lay="the young driver excess",
            asks=(
                Ask(
                    "limits",
                    (
                        "My <19 year old|teenage> <son|daughter> is a named driver, what's the"
                        " <excess|deductible> if they crash?",
                    ),
                    supports=("lim.compulsory_excess", "lim.general", "exc.drivers"),
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    ("Is there an extra <excess|deductible> for new drivers?",),
                    supports=("lim.compulsory_excess", "lim.general", "exc.drivers"),
                ),
                Ask(
                    "limits",
                    (
                        "Has the <young driver|new driver> excess gone up? <I thought|I'm sure> it"
                        " was {other[young_excess]} for my <22 year old|son, he's 23>",
                    ),
                    supports=("lim.compulsory_excess", "exc.drivers"),
                    versions=("2025",),
                    hinge="young_excess",
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    (
                        "My <18|19|20> year old's extra excess <was|used to be>"
                        " {other[under21_excess]}, is it <still that|the same> after renewal?",
                    ),
                    supports=("lim.compulsory_excess", "exc.drivers"),
                    versions=("2025",),
                    hinge="under21_excess",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "lim.theft_excess",
            "Theft excess",
            "the theft excess",
            (
                "If the vehicle is stolen or damaged during an attempted theft, the excess is"
                " {v[theft_excess]} instead of the compulsory excess.",
                "Where endorsement END-MT-13 is shown in your schedule, this excess is reduced by"
                " half, provided the tracking device approved by us was fitted and working at the"
                " time of the theft.",
                "We will not pay a theft claim at all where exclusion {ref[exc.keys]} applies.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "<My car got nicked|My car was stolen> <off the drive|from outside the"
                        " house>, what's my excess?",
                        "Someone tried to <break into|steal> my car and wrecked the ignition, what"
                        " excess do I pay?",
                    ),
                    supports=("cov.fire_theft", "cond.care"),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Does a <tracker|tracking device> <reduce|lower> the <theft excess|excess"
                        " if the car is stolen>?",
                    ),
                    supports=("abt.endorsements",),
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    (
                        "Is the theft excess still {other[theft_excess]}?",
                        "My car was <stolen|nicked> last week, <last year's documents|my old"
                        " schedule> said the excess was {other[theft_excess]}, is that right?",
                    ),
                    supports=("cov.fire_theft",),
                    versions=("2025",),
                    hinge="theft_excess",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.windscreen",
            "Windscreen excess and limits",
            "the windscreen excess",
            (
                "The excess for repairing glass is {v[glass_repair_excess]} and the excess for"
                " replacing glass is {v[glass_replace_excess]}.",
                "If you do not use our approved glass supplier (see clause {ref[clm.windscreen]}),"
                " the most we will pay is {v[glass_limit]} for any one claim.",
            ),
            fill=5,
            lay="the windscreen excess",
            asks=(
                Ask(
                    "limits",
                    (
                        "<A stone chipped my windscreen|I've got a crack in the windscreen>, how"
                        " much do I pay <to get it fixed|towards it>?",
                    ),
                    supports=("cov.windscreen",),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Can I use my own <glass company|windscreen firm> and <what's the"
                        " limit|how much will you pay>?",
                    ),
                    supports=("cov.windscreen",),
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    (
                        "Is the excess for a <new|replacement> windscreen still"
                        " {other[glass_replace_excess]}<, or has that gone up|>?",
                        "Has the <windscreen|glass> excess <changed|gone up> <this year|since I"
                        " renewed>?",
                    ),
                    supports=("cov.windscreen",),
                    versions=("2025",),
                    hinge="glass_replace_excess",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.repairer_excess",
            "Excess if you do not use an approved repairer",
            "the non-approved repairer excess",
            (
                "If you choose to have the vehicle repaired by a repairer who is not an approved"
                " repairer (see clause {ref[def.repairer]}), an additional excess of"
                " {v[repairer_excess]} applies.",
                "We will not pay more than the amount an approved repairer would have charged.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "<What extra do I pay|Is there an additional excess> if I use my own"
                        " <garage|mechanic> for the repairs?",
                    ),
                    also=("clm.repairs",),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Is it still {other[repairer_excess]} extra if I use my own"
                        " <garage|mechanic>?",
                    ),
                    also=("clm.repairs",),
                    versions=("2025",),
                    hinge="repairer_excess",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.belongings",
            "Personal belongings",
            "personal belongings",
            (
                "The most we will pay for personal belongings under clause {ref[cov.belongings]}"
                " is {v[belongings_limit]} for any one claim.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "<Someone broke into my car|Thieves broke into my car> and took my <bag|gym"
                        " bag>, how much can I claim?",
                        "What's the limit for <stuff|things> <stolen from|taken out of> the car?",
                    ),
                    supports=("def.belongings", "cond.care"),
                ),
                Ask(
                    "limits",
                    (
                        "Did the limit for <stuff|things> <stolen from|in> the car <go"
                        " up|change>? It was {other[belongings_limit]}",
                    ),
                    supports=("def.belongings",),
                    versions=("2025",),
                    hinge="belongings_limit",
                ),
            ),
        ),
        ClauseDef(
            "lim.audio",
            "Audio and navigation equipment",
            "audio and navigation equipment",
            (
                "The most we will pay for audio, navigation and entertainment equipment that was"
                " not fitted by the manufacturer is {v[audio_limit]} for any one claim.",
                "Equipment that is not permanently fitted is not an accessory under clause"
                " {ref[def.accessories]} and is not covered by this limit.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "<My aftermarket stereo|The sat nav I had fitted> was stolen, how much"
                        " will you pay?",
                    ),
                    supports=("cov.audio",),
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.keys",
            "Locks and keys",
            "locks and keys",
            (
                "The most we will pay under clause {ref[cov.keys]} is {v[keys_limit]} for any one"
                " claim.",
                "An excess of £100 applies, and a claim for keys alone does not affect your no"
                " claim discount.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "I lost my car <keys|key fob> <on a night out|at the beach>, how much"
                        " will you pay towards <new ones|a replacement>?",
                    ),
                    supports=("def.keys",),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Did the <key|lost keys> cover <go up|change>? My fob costs about"
                        " £700 and it <was|used to be> capped at {other[keys_limit]}",
                    ),
                    supports=("def.keys",),
                    versions=("2025",),
                    hinge="keys_limit",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.charging",
            "Charging equipment",
            "charging equipment",
            (
                "The most we will pay for charging equipment, as defined in clause"
                " {ref[def.charging]}, is {v[charging_limit]} for any one claim.",
                "There is no limit for the vehicle's battery other than the market value of the"
                " vehicle.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "My <charging cable|EV cable> was stolen <at a charge point|from the"
                        " driveway>, how much do you pay?",
                    ),
                    supports=("cov.charging",),
                    facts=(0,),
                ),
                Ask(
                    "limits",
                    (
                        "Is the <car battery|EV battery> covered if it's leased, and is there a"
                        " limit?",
                    ),
                    supports=("cov.charging", "exc.wear"),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "lim.liability",
            "Liability limits",
            "liability",
            (
                "There is no limit on the amount we will pay for death or bodily injury.",
                "The most we will pay for damage to other people's property is £20,000,000 for"
                " any one event, plus legal costs we have agreed, reduced to £5,000,000 when the"
                " vehicle is towing a trailer.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "If I <crash into|damage> someone's <expensive car|house>, what's the most"
                        " you'll pay them?",
                    ),
                    supports=("cov.liability", "exc.alcohol"),
                    facts=(1,),
                ),
                Ask(
                    "limits",
                    (
                        "Is there a <cap|limit> on what you pay if I <injure|knock down> a"
                        " <pedestrian|cyclist>?",
                    ),
                    supports=("cov.liability", "exc.alcohol"),
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "lim.personal_accident",
            "Personal accident benefit",
            "personal accident benefit",
            (
                "The personal accident benefit is {v[pa_benefit]} for each person, and we will not"
                " pay more than this for any one person in any period of insurance.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "How much is the <personal accident|injury> <benefit|payout> if I'm"
                        " seriously hurt in a <crash|car accident>?",
                        "If <I lose|my wife loses> <an eye|a leg> in a car crash, what do you pay?",
                    ),
                    supports=("cov.personal_accident", "cond.other"),
                ),
                Ask(
                    "limits",
                    (
                        "Is the personal accident <payout|benefit> still {other[pa_benefit]}"
                        " <on the new policy|after renewal>?",
                    ),
                    supports=("cov.personal_accident",),
                    versions=("2025",),
                    hinge="pa_benefit",
                ),
            ),
        ),
        ClauseDef(
            "lim.child_seats",
            "Child car seats",
            "child car seats",
            (
                "The most we will pay for child car seats is {v[child_seat_limit]} for any one"
                " claim, and no excess applies to it.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "Will you <replace|pay for> the <baby seat|kids' car seats> after a"
                        " <bump|crash>, and how much?",
                    ),
                    supports=("cov.child_seats",),
                ),
            ),
        ),
    ),
)

EXCLUSIONS = PartDef(
    "5",
    "What is not covered",
    "exclusions",
    (
        *shared.EXCLUSIONS_FIRST,
        ClauseDef(
            "exc.alcohol",
            "Alcohol and drugs",
            "driving under the influence",
            (
                "We will not pay for loss of or damage to the vehicle while it is being driven by"
                " anyone who is over the legal limit for alcohol, or unfit to drive through drugs,"
                " or who fails to provide a sample when required to by the police.",
                "We will meet our legal obligations to other people under clause"
                " {ref[cov.liability]}, but we may recover what we pay from the driver.",
            ),
            fill=4,
            code_no=5,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "If I <crash after a couple of drinks|have an accident after a few pints>,"
                        " will you pay <for my car|anything>?",
                        "What happens <to my claim|with the insurance> if the driver"
                        " <refused|didn't give> a breath test?",
                    ),
                ),
                Ask(
                    "exclusions",
                    (
                        "My <mate|brother> was over the limit driving my car and hit someone, who"
                        " pays <them|the other side>?",
                    ),
                    also=("cov.liability",),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "exc.drivers",
            "Drivers and licences",
            "unauthorised drivers",
            (
                "We will not pay any claim while the vehicle is being driven by anyone not"
                " allowed to drive it by your certificate of motor insurance (clause"
                " {ref[def.certificate]}), or by anyone who does not hold a valid licence to drive"
                " it.",
                "This exclusion does not apply while the vehicle is in the custody of a garage for"
                " servicing or repair, or with a member of the hotel or restaurant staff for"
                " parking.",
                {
                    "2025": "This policy does not cover you or any named driver to drive any"
                    " vehicle other than the vehicle described in your schedule.",
                },
            ),
            fill=4,
            code_no=6,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "My <mate|friend> <drove my car|borrowed my car> and crashed it, but he's"
                        " not on my policy. Am I covered?",
                    ),
                    supports=("def.named_driver", "cov.liability"),
                    facts=(0,),
                ),
                Ask(
                    "exclusions",
                    (
                        "Is the car covered when <it's with the garage|the mechanic is driving it>"
                        " for a service?",
                        "<The valet|A hotel valet> <scraped|dented> my car parking it, does my"
                        " insurance cover that?",
                    ),
                    facts=(1,),
                ),
                Ask(
                    "exclusions",
                    (
                        "Can I still drive <other people's cars|my mate's car> on my policy? I"
                        " <could|was covered to> <last year|before I renewed>",
                        "Has driving other cars been <taken off|removed from> my <car"
                        " insurance|policy>?",
                    ),
                    versions=("2025",),
                    hinge="wording",
                    facts=(2,),
                ),
            ),
        ),
        ClauseDef(
            "exc.use",
            "Uses not covered",
            "uses not covered",
            (
                "We will not pay any claim while the vehicle is being used for a purpose not"
                " allowed by your certificate of motor insurance; see clause {ref[def.use]}.",
                {
                    "2024": "We will not pay any claim while the vehicle is being used for racing,"
                    " competitions, rallies, speed testing or on a race track.",
                    "2025": "We will not pay any claim while the vehicle is being used for racing,"
                    " competitions, rallies, speed testing, or on a race track or at any track"
                    " day as defined in clause {ref[def.track_day]}, even where the event is not"
                    " timed.",
                },
                "Where endorsement END-MT-05 is shown in your schedule, use in connection with your"
                " business is allowed, but not the carriage of goods or passengers for payment.",
            ),
            fill=4,
            code_no=8,
            lay="the uses exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "Am I covered <on a track day|at a trackday> at <Silverstone|Brands"
                        " Hatch>?",
                        "Is a <sprint|hill climb> event covered <if it's just for fun|on my normal"
                        " policy>?",
                    ),
                    facts=(1,),
                ),
                Ask(
                    "exclusions",
                    (
                        "Is the car covered if I <use it for work|drive for my job>?",
                        "Can I <visit clients|drive to client sites> in my car on this policy?",
                    ),
                    supports=("abt.endorsements",),
                    also=("def.use",),
                    facts=(0, 2),
                ),
                Ask(
                    "exclusions",
                    (
                        "<Can I still|Am I still allowed to> do <track days|a trackday> <if it's"
                        " not timed|as long as it's not a race>? <That used to be fine|Last year's"
                        " policy only said racing>",
                    ),
                    versions=("2025",),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "exc.keys",
            "Keys left in or on the vehicle",
            "keys left in the vehicle",
            (
                "We will not pay for theft or attempted theft of the vehicle, or for loss of or"
                " damage to it, if the keys (as defined in clause {ref[def.keys]}) were left in or"
                " on the vehicle while it was unattended, or the vehicle was left unlocked or with"
                " a window or roof open.",
                {
                    "2025": "We will not pay for theft of the vehicle using a keyless entry"
                    " signal relay if the keyless entry device was kept within five metres of the"
                    " vehicle and was not stored in a signal-blocking pouch or box.",
                },
            ),
            fill=4,
            code_no=9,
            lay="the keys exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "My car was stolen <while it was warming up|with the engine running> on"
                        " the drive, <will you pay|am I covered>?",
                        "I left the <sunroof|window> open <at the shops|for five minutes> and the"
                        " car got nicked, can I claim?",
                    ),
                    supports=("cov.fire_theft", "cond.care"),
                    facts=(0,),
                ),
                Ask(
                    "exclusions",
                    (
                        "<Thieves|Someone> <stole|took> my <keyless|push-start> car <off the"
                        " drive|from outside the house> using a <relay|signal booster>, is that"
                        " covered?",
                    ),
                    supports=("cov.fire_theft", "def.keys"),
                    versions=("2025",),
                    facts=(1,),
                ),
                Ask(
                    "exclusions",
                    (
                        "Is <keyless|relay> theft still covered <after my renewal|on the new"
                        " policy>? I keep my fob <by the front door|in the hallway>",
                        "Do I need a <Faraday pouch|signal blocking box> for my key <now|since I"
                        " renewed>?",
                    ),
                    supports=("cov.fire_theft",),
                    versions=("2025",),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "exc.wear",
            "Wear, tear and breakdown",
            "wear and tear",
            (
                "We will not pay for wear and tear, or for mechanical, electrical, electronic or"
                " computer failure, breakdown or breakage.",
                "We will not pay for damage to the engine caused by a lack of oil, coolant or"
                " maintenance.",
                "The vehicle's battery is covered under clause {ref[cov.charging]} only for loss"
                " or damage from an accident, fire, theft or malicious damage, not for a fall in"
                " its capacity with age or use.",
            ),
            fill=4,
            code_no=10,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "<My gearbox|The clutch> <packed up|failed>, can I claim on my <car"
                        " insurance|policy>?",
                        "Does the insurance cover the car <breaking down|just breaking down>?",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "exclusions",
                    (
                        "My <EV battery|electric car's battery> <has lost loads of range|is"
                        " degrading>, can I claim?",
                    ),
                    facts=(2,),
                ),
            ),
        ),
        ClauseDef(
            "exc.tyres",
            "Tyres",
            "damage to tyres",
            (
                "We will not pay for damage to tyres caused by braking, punctures, cuts or bursts.",
                "We will pay for damage to tyres caused by an accident that also damages other"
                " parts of the vehicle, under clause {ref[cov.damage]}.",
            ),
            fill=4,
            code_no=11,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "I got a <puncture|flat tyre> <from a nail|on the motorway>, is a new tyre"
                        " covered?",
                        "<Will|Do> you pay for tyres damaged by a pothole?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "exc.fuel",
            "Wrong fuel",
            "wrong fuel",
            (
                {
                    "2024": "We will not pay for any loss or damage caused by putting the wrong"
                    " fuel in the vehicle, including the cost of draining the fuel system.",
                    "2025": "We will not pay for damage to the engine caused by putting the wrong"
                    " fuel in the vehicle, but we will pay up to £500 for draining and flushing"
                    " the fuel system and recovering the vehicle.",
                },
            ),
            fill=4,
            code_no=12,
            lay="the wrong fuel exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "I put <petrol in my diesel|diesel in my petrol car> by mistake, <will you"
                        " pay|am I covered>?",
                        "Is <misfuelling|filling up with the wrong fuel> covered?",
                    ),
                ),
                Ask(
                    "exclusions",
                    (
                        "<I know|I heard> misfuelling <wasn't|used to not be> covered, is that"
                        " still <true|the case> <this year|since I renewed>?",
                        "Do you pay for <draining the tank|a fuel drain> now if I put the wrong"
                        " fuel in?",
                    ),
                    versions=("2025",),
                    hinge="wording",
                ),
            ),
        ),
        ClauseDef(
            "exc.value",
            "Loss of value",
            "loss of value",
            (
                "We will not pay for any reduction in the value of the vehicle after it has been"
                " repaired, or for loss of use of the vehicle, or for travel costs while it is off"
                " the road, other than by providing the courtesy car in clause"
                " {ref[cov.courtesy]}.",
            ),
            fill=4,
            code_no=14,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "My car is worth less <after the repair|now it's been in an accident>, can"
                        " I claim for the <drop|loss> in value?",
                        "Do you pay my <train fares|taxi costs> while my car is <off the"
                        " road|being fixed>?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "exc.confiscation",
            "Confiscation",
            "confiscation",
            (
                "We will not pay for loss of or damage to the vehicle while it is confiscated,"
                " seized or destroyed by or under the order of any government, public or local"
                " authority, including the police.",
            ),
            fill=4,
            code_no=15,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "The police <seized|impounded> my car, will you pay <to get it back|the"
                        " release fee>?",
                        "My car got <damaged|scratched> while it was <in the police"
                        " pound|impounded>, is that covered?",
                    ),
                ),
            ),
        ),
        shared.EXCLUSION_CYBER,
        ClauseDef(
            "exc.delivery",
            "Delivery and ride-hailing",
            "delivery and ride-hailing",
            (
                "We will not pay any claim while the vehicle is being used to deliver food,"
                " parcels or other goods for payment, or to carry passengers for hire through an"
                " app or otherwise.",
                "This exclusion applies even if your certificate allows business use under clause"
                " {ref[exc.use]}.",
            ),
            fill=4,
            code_no=19,
            versions=("2025",),
            asks=(
                Ask(
                    "exclusions",
                    (
                        "Am I covered <doing food deliveries|delivering takeaways> in my own car?",
                        "Can I use my car for <Uber|a ride-hailing app> on this policy?",
                    ),
                    supports=("def.use",),
                    facts=(0,),
                ),
                Ask(
                    "exclusions",
                    (
                        "I've got business use, can I do <Amazon Flex|parcel> deliveries <on the"
                        " side|at weekends>?",
                    ),
                    supports=("def.use",),
                ),
            ),
        ),
    ),
)

CLAIMS = PartDef(
    "6",
    "Making a claim",
    "claims",
    (
        ClauseDef(
            "clm.notify",
            "Reporting an accident or loss",
            "your claim",
            (
                {
                    "2024": "You must tell us about any accident, loss or damage as soon as"
                    " possible, and in any case within seven days, even if you do not intend to"
                    " claim.",
                    "2025": "You must tell us about any accident, loss or damage as soon as"
                    " possible, and in any case within 48 hours, even if you do not intend to"
                    " claim.",
                },
                {
                    "2024": "You can tell us by calling the claims helpline in clause"
                    " {ref[clm.helpline]}.",
                    "2025": "You can tell us by calling the claims helpline in clause"
                    " {ref[clm.helpline]} or through our app, where you can also upload"
                    " photographs.",
                },
                "Telling us about an incident is not the same as making a claim, but it may"
                " affect your premium at renewal.",
            ),
            fill=5,
            lay="the reporting section",
            asks=(
                Ask(
                    "procedures",
                    (
                        "How <long|many days> do I have to <report|tell you about> a <crash|bump>?",
                        "Do I <need|have> to tell you about a <minor|small> accident even if I'm"
                        " not claiming?",
                        "had a little scrape in a car park, do i have to <let you know|report it>?",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "Is it still <a week|7 days> to report <an accident|a crash>?",
                        "Did the <deadline|time limit> for <reporting|telling you about> a"
                        " <bump|crash> change <this year|at renewal>?",
                    ),
                    versions=("2025",),
                    hinge="wording",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "clm.scene",
            "At the scene of an accident",
            "an accident",
            (
                "If you are involved in an accident, you must stop and give your name, address"
                " and vehicle registration to anyone with reasonable grounds to ask for them.",
                "If anyone is injured, or you cannot exchange details, you must report the"
                " accident to the police as soon as possible and in any case within 24 hours.",
                {
                    "2024": "Take photographs of the scene and the vehicles, and note the names and"
                    " addresses of any witnesses.",
                    "2025": "Take photographs of the scene and the vehicles, note the names and"
                    " addresses of any witnesses, and keep any dash camera footage as set out in"
                    " clause {ref[clm.dashcam]}.",
                },
                "You must then tell us about the accident as set out in clause {ref[clm.notify]}.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "What should I do <at the scene of an accident|straight after a"
                        " crash|right after an accident>?",
                    ),
                ),
                Ask(
                    "procedures",
                    (
                        "The other driver <drove off|wouldn't give me details>, what do I do?",
                        "When do I need to <call|tell> the police after a <crash|collision>?",
                    ),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "clm.liability",
            "Do not admit liability",
            "admitting liability",
            (
                "You must not admit responsibility for an accident, or offer or agree to pay"
                " anything, without our written agreement.",
                "We will deal with the other party and their insurer on your behalf.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "<Should I|Can I> <say sorry|admit it was my fault> to the other driver?",
                        "The other driver wants me to pay <cash|them directly> <instead of"
                        " claiming|to keep it off insurance>, can I?",
                    ),
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "clm.theft",
            "Theft or vandalism",
            "theft or vandalism",
            (
                {
                    "2024": "If the vehicle or anything in it is stolen or vandalised, you must"
                    " report it to the police within 24 hours and give us the crime reference"
                    " number.",
                    "2025": "If the vehicle or anything in it is stolen or vandalised, you must"
                    " report it to the police within 24 hours, give us the crime reference number"
                    " and send us every key to the vehicle within seven days.",
                },
                "If the vehicle is recovered after you have told us about the theft, you must"
                " tell us immediately.",
                "If the vehicle has not been recovered within {v[recovery_days]} days, we will"
                " settle the claim as a total loss under clause {ref[clm.total_loss]}.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    ("My car's been stolen, <what do I do|what are the steps>?",),
                    supports=("clm.notify",),
                ),
                Ask(
                    "procedures",
                    (
                        "Someone <keyed|scratched> my car, <do I need to|should I> report it to"
                        " the police?",
                    ),
                    supports=("clm.notify",),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "the police found my stolen car <last night|this morning>, do I need to"
                        " <tell you|let you know>?",
                    ),
                    supports=("clm.notify",),
                    facts=(1,),
                ),
                Ask(
                    "procedures",
                    (
                        "Do I <have to|need to> send you <my spare key|all the keys> <now|these"
                        " days> when my car is stolen?",
                    ),
                    supports=("clm.notify",),
                    versions=("2025",),
                    hinge="wording",
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "What's changed <in the theft claim process|about reporting a stolen car>"
                        " since <I renewed|last year>?",
                    ),
                    supports=("clm.notify",),
                    versions=("2025",),
                    hinge="wording",
                    facts=(0, 2),
                ),
            ),
        ),
        ClauseDef(
            "clm.repairs",
            "Repairs",
            "repairs",
            (
                "If you use an approved repairer, as defined in clause {ref[def.repairer]}, we will"
                " arrange the repair, collect and deliver the vehicle, and pay the repairer"
                " directly, less your excess.",
                {
                    "2024": "If you use another repairer, you must send us an estimate before any"
                    " work starts, and the additional excess of {v[repairer_excess]} in clause"
                    " {ref[lim.repairer_excess]} applies.",
                    "2025": "If you use another repairer, you must send us an estimate and"
                    " photographs of the damage and wait for our written approval before any work"
                    " starts; the additional excess of {v[repairer_excess]} in clause"
                    " {ref[lim.repairer_excess]} applies.",
                },
            ),
            fill=5,
            lay="the repairs section",
            asks=(
                Ask(
                    "procedures",
                    (
                        "Can I <choose my own garage|use my local garage> for the repair?",
                        "Do I have to <get quotes|send you an estimate> before the garage starts?",
                    ),
                    facts=(1,),
                ),
                Ask(
                    "procedures",
                    (
                        "Do I <need|have> to wait for <your OK|you to approve it> before my own"
                        " garage <starts|does the work>?",
                        "Did the process for using <my own garage|a garage of my choice>"
                        " change <this year|on the new wording>?",
                    ),
                    versions=("2025",),
                    hinge="wording",
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "clm.total_loss",
            "Total loss settlement",
            "a total loss",
            (
                "If the vehicle is a total loss, as defined in clause {ref[def.total_loss]}, we"
                " will pay you its market value, less your excess and any unpaid premium.",
                "If the vehicle is on finance or lease, we will pay the finance company first,"
                " and pay you any balance.",
                {
                    "2025": "We will make the payment within ten working days of the day you"
                    " accept our settlement offer.",
                },
                "Once we have paid, the vehicle becomes our property, and your policy for it ends.",
            ),
            fill=5,
            lay="the write-off section",
            asks=(
                Ask(
                    "procedures",
                    ("My car is on finance and got written off, who gets the <money|payout>?",),
                    supports=("lim.vehicle", "def.market_value"),
                    facts=(1,),
                ),
                Ask(
                    "procedures",
                    (
                        "Do I keep <my car|the wreck> after you've paid out for a <write-off|total"
                        " loss>?",
                    ),
                    facts=(3,),
                ),
                Ask(
                    "procedures",
                    (
                        "I pay monthly, do you take the rest of the year's premium off <my"
                        " payout|the write-off money>?",
                    ),
                    supports=("cond.instalments",),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "How <quickly|soon> do you pay out once I <accept|agree to> the"
                        " <write-off|settlement> <offer|figure>?",
                    ),
                    versions=("2025",),
                    hinge="wording",
                    facts=(2,),
                ),
            ),
        ),
        ClauseDef(
            "clm.windscreen",
            "Windscreen claims",
            "a windscreen claim",
            (
                {
                    "2024": "For glass damage, call our windscreen helpline, shown on your"
                    " schedule; our approved glass supplier will repair or replace the glass at"
                    " your home or workplace.",
                    "2025": "For glass damage, claim online or in our app, or call our windscreen"
                    " helpline shown on your schedule; our approved glass supplier will repair or"
                    " replace the glass at your home or workplace, usually within two working"
                    " days.",
                },
                "You do not need to call the main claims line for windscreen claims.",
                "The glass cover is set out in clause {ref[cov.windscreen]} and the glass excesses"
                " in clause {ref[lim.windscreen]}.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "Who do I <call|ring> about a <cracked windscreen|chipped windscreen>?",
                        "Can someone <fix|replace> my windscreen <at work|on my drive>?",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "Can I <book|claim for> a windscreen repair <online|in the app> now, or do"
                        " I still have to ring?",
                    ),
                    versions=("2025",),
                    hinge="wording",
                    facts=(0,),
                ),
            ),
        ),
        ClauseDef(
            "clm.uninsured",
            "Uninsured driver promise",
            "the uninsured driver promise",
            (
                "If you are involved in an accident that was not your fault and the other driver"
                " is not insured, you will not lose your no claim discount and we will refund your"
                " excess.",
                {
                    "2024": "You must give us the make, model and registration of the other"
                    " vehicle and, if possible, the other driver's name and address.",
                    "2025": "You must give us the make, model and registration of the other"
                    " vehicle and, if possible, the other driver's name and address, and the"
                    " accident must have been reported to the police as set out in clause"
                    " {ref[clm.scene]}.",
                },
                "Where endorsement END-MT-02 is shown in your schedule, your no claim discount is"
                " protected, and up to two claims in any five years will not reduce it.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "<The driver who hit me|The person who crashed into me> <has no"
                        " insurance|wasn't insured>, what happens <to my no claims|to my excess>?",
                    ),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "<Do I still keep|Will I still keep> my no claims if <an uninsured driver"
                        " hits me|I'm hit by someone with no insurance> and I didn't <call|report"
                        " it to> the police?",
                    ),
                    versions=("2025",),
                    hinge="wording",
                    facts=(0, 1),
                ),
            ),
        ),
        ClauseDef(
            "clm.helpline",
            "Claims helpline and recovery",
            "the claims helpline",
            (
                "Our claims helpline is open 24 hours a day, every day of the year.",
                "If the vehicle cannot be driven after an accident, call the helpline and we will"
                " arrange for it to be recovered to an approved repairer.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    ("Is the claims <line|helpline> open <at night|on Sundays|on Christmas Day>?",),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "<My car can't be driven|The car's undriveable> after <the crash|an"
                        " accident>, who <moves|recovers> it?",
                    ),
                    supports=("cov.damage",),
                    facts=(1,),
                ),
            ),
        ),
        ClauseDef(
            "clm.dashcam",
            "Dash camera footage",
            "dash camera footage",
            (
                "If the vehicle has a dash camera, you must keep any footage of an accident or"
                " theft and send it to us within 14 days of telling us about the incident under"
                " clause {ref[clm.notify]}.",
                "You can upload footage through our app or our website.",
                "Do not share the footage on social media while the claim is open, as this may"
                " harm our ability to settle it.",
            ),
            fill=3,
            versions=("2025",),
            gloss="keeping dash cam video of an accident and sending it to us",
            asks=(
                Ask(
                    "procedures",
                    (
                        "How long have I got to send you my <dash cam|dashcam> <footage|video>"
                        " after <a crash|an accident>?",
                    ),
                    supports=("clm.scene",),
                    facts=(0,),
                ),
                Ask(
                    "procedures",
                    (
                        "Can I <post|put> my <dash cam|dashcam> video <on Facebook|online> while"
                        " you sort out the claim?",
                    ),
                    facts=(2,),
                ),
                Ask(
                    "procedures",
                    (
                        "Do I <have to|need to> <keep|save> my <dash cam|dashcam> footage after <a"
                        " crash|an accident> now? <That's new|I don't remember that last year>",
                    ),
                    supports=("clm.scene",),
                    hinge="wording",
                    facts=(0,),
                ),
            ),
        ),
    ),
)

CONDITIONS = PartDef(
    "7",
    "General conditions",
    "conditions",
    (
        *shared.CONDITIONS,
        ClauseDef(
            "cond.roadworthy",
            "Keeping your vehicle roadworthy",
            "the condition of the vehicle",
            (
                "You must keep the vehicle in a roadworthy condition and have a valid MOT"
                " certificate if one is needed by law.",
                "Tyres must be above the legal minimum tread depth at all times.",
                "You must let us examine the vehicle at any reasonable time.",
                "If the condition of the vehicle caused or added to a loss, we may refuse or"
                " reduce the claim under clause {ref[cond.care]}.",
            ),
            fill=3,
            asks=(
                Ask(
                    "procedures",
                    ("<Am I covered|Will you pay out> if my MOT <ran out|expired> last week?",),
                    facts=(0, 3),
                ),
                Ask(
                    "procedures",
                    ("Do <bald tyres|worn tyres> affect my <claim|cover>?",),
                    facts=(1, 3),
                ),
                Ask(
                    "procedures",
                    ("can you <inspect|look at> my car before you pay the claim?",),
                    facts=(2,),
                ),
            ),
        ),
    ),
)

ABOUT = PartDef("1", "About this policy", "other", shared.ABOUT)

MOTOR = ProductDef(
    document="motor",
    code="MT",
    title="Private Car Insurance Policy Wording",
    prod="motor insurance policy",
    asset="your vehicle",
    forms={"2024": "MT-PW-2024/01", "2025": "MT-PW-2025/02"},
    starts={"2024": "1 February 2024", "2025": "1 March 2025"},
    lay_names=("my car insurance", "my motor policy", "my car policy", "the car insurance"),
    values={
        "prev_form": ("MT-PW-2023/01", "MT-PW-2024/01"),
        "asset_lay": "my car",
        "war_note": "We will still provide the cover that the Road Traffic Acts require.",
        "period_note": "A period of insurance is normally twelve months; cover ends at"
        " midnight on the last day shown.",
        "care_example": "This includes locking the vehicle and removing the keys whenever it is"
        " left unattended.",
        "change_examples": "a change of vehicle, address or job, a new driver, modifications to"
        " the vehicle, or any motoring conviction or fixed penalty, such as a speeding"
        " ticket",
        "change_lay": "<I get a speeding ticket|I get points on my licence>",
        "compulsory_excess": ("£250", "£300"),
        "under21_excess": ("£400", "£500"),
        "young_excess": ("£200", "£250"),
        "theft_excess": ("£250", "£350"),
        "glass_repair_excess": ("£10", "£25"),
        "glass_replace_excess": ("£95", "£125"),
        "glass_limit": ("£150", "£200"),
        "belongings_limit": ("£250", "£300"),
        "audio_limit": ("£500", "£750"),
        "keys_limit": ("£500", "£750"),
        "charging_limit": ("£1,000", "£1,500"),
        "pa_benefit": ("£5,000", "£7,500"),
        "child_seat_limit": ("£300", "£400"),
        "repairer_excess": ("£250", "£300"),
        "europe_days": ("90", "60"),
        "new_car_months": ("12", "18"),
        "recovery_days": ("28", "21"),
    },
    endorsements=(
        Endorsement("END-MT-02", "Protected no claim discount", "clm.uninsured"),
        Endorsement("END-MT-05", "Business use", "exc.use"),
        # only in 2024: its clause, cov.other_cars, is withdrawn in 2025
        Endorsement("END-MT-09", "Driving other cars withdrawn", "cov.other_cars"),
        Endorsement("END-MT-13", "Tracking device", "lim.theft_excess"),
    ),
    parts=(ABOUT, DEFINITIONS, COVER, LIMITS, EXCLUSIONS, CLAIMS, CONDITIONS),
)
